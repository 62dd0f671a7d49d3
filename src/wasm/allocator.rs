//! The wasm's allocator: talc, with the small blocks recycled in front of it. A freed block
//! of up to [`LARGEST`] bytes goes on the free list of its size class (its size rounded up to
//! 8) and serves the next allocation of that class for the cost of a load and a store; larger
//! blocks, and blocks aligned to more than 8, go to talc. NOTE: about a tenth of the time from
//! `new Task` to the first text went to talc's bookkeeping for such blocks (JSON values,
//! short strings, boxed closures, futures); recycled, the first text comes about 0.95x as
//! late and a task's round costs 0.92-0.99x (benches/wasm/compare.mjs side by side, for
//! 186 B gzipped; BENCHMARKS.md). A recycled block is never given back to talc: the memory the
//! small blocks hold is at most what they held at their peak, as talc's pages already were.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::UnsafeCell;
use std::ptr;

/// The largest block recycled, in bytes.
pub(crate) const LARGEST: usize = 128;

/// The size classes: 8, 16, … [`LARGEST`] bytes.
const CLASSES: usize = LARGEST / 8;

/// talc behind one free list per size class of small blocks.
pub(crate) struct Recycling {
    /// Where every block comes from.
    talc: talc::TalckWasm,
    /// Each class's last freed block; a free block's first word is the one freed before it
    /// (null: the list ends).
    free: UnsafeCell<[*mut u8; CLASSES]>,
}

// SAFETY: a wasm instance of this package is single-threaded: the lists are never reached
// from two threads.
unsafe impl Sync for Recycling {}

impl Recycling {
    /// Small blocks recycled in front of `talc`.
    ///
    /// # Safety
    /// The instance must be single-threaded (the lists have no lock).
    pub(crate) const unsafe fn new(talc: talc::TalckWasm) -> Self {
        Self { talc, free: UnsafeCell::new([ptr::null_mut(); CLASSES]) }
    }

    /// The size class of a block of `layout`, when it is a small one.
    fn class(layout: Layout) -> Option<usize> {
        let class = layout.size().saturating_sub(1) / 8;
        (layout.align() <= 8 && class < CLASSES).then_some(class)
    }

    /// The layout every block of `class` has in talc: the class's size, aligned to 8 (room
    /// for the list's pointer).
    fn class_layout(class: usize) -> Layout {
        // SAFETY: 8 is a power of two, and the size (8 to LARGEST) is far from overflowing.
        unsafe { Layout::from_size_align_unchecked((class + 1) * 8, 8) }
    }

    /// Where the head of `class`'s free list is.
    fn head(&self, class: usize) -> Option<*mut *mut u8> {
        // SAFETY: single-threaded, and the reference lives only in this call.
        unsafe { (*self.free.get()).get_mut(class).map(ptr::from_mut) }
    }
}

// SAFETY: a small block comes from talc with its class's layout and keeps it from list to
// list, so whatever a caller asks of a block of that class (size, alignment up to 8) it has;
// a large one is talc's, untouched.
unsafe impl GlobalAlloc for Recycling {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let Some(class) = Self::class(layout) else { return self.talc.alloc(layout) };
        match self.head(class) {
            Some(head) if !(*head).is_null() => {
                let block = *head;
                *head = *block.cast::<*mut u8>();
                block
            }
            _ => self.talc.alloc(Self::class_layout(class)),
        }
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        let Some(class) = Self::class(layout) else { return self.talc.dealloc(block, layout) };
        if let Some(head) = self.head(class) {
            *block.cast::<*mut u8>() = *head;
            *head = block;
        }
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        let new = Layout::from_size_align_unchecked(size, layout.align());
        match (Self::class(layout), Self::class(new)) {
            (None, None) => self.talc.realloc(block, layout, size),
            // The block already has its class's size.
            (Some(old), Some(class)) if old == class => block,
            _ => {
                let moved = self.alloc(new);
                if !moved.is_null() {
                    ptr::copy_nonoverlapping(block, moved, layout.size().min(size));
                    self.dealloc(block, layout);
                }
                moved
            }
        }
    }
}
