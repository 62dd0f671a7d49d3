use std::time::Instant;
fn main() {
    let body = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/sse-openai-5000.txt")).unwrap();
    let lines: Vec<&str> = body.lines().filter_map(|l| l.strip_prefix("data: ")).filter(|l| *l != "[DONE]").collect();
    let mut best = f64::MAX;
    let mut check = 0usize;
    for _ in 0..30 {
        let t = Instant::now();
        for l in &lines { check = check.wrapping_add(ms::decode(l)); }
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!("{} lines, best {:.3} ms ({:.0} ns/line) check {}", lines.len(), best * 1e3, best * 1e9 / lines.len() as f64, check);
}
