use std::collections::HashMap;
trait Shape { fn area(&self) -> f64; }
struct Sq(f64);
impl Shape for Sq { fn area(&self) -> f64 { self.0 * self.0 } }
fn generic<T: std::fmt::Debug + Clone>(v: &[T]) -> Vec<T> { v.iter().rev().cloned().collect() }
fn main() {
    let mut m: HashMap<String, Vec<u32>> = HashMap::new();
    for i in 0..10u32 { m.entry(format!("k{}", i % 3)).or_default().push(i); }
    let shapes: Vec<Box<dyn Shape>> = vec![Box::new(Sq(2.0))];
    let total: f64 = shapes.iter().map(|s| s.area()).sum();
    let r = generic(&[1u8, 2, 3]);
    let h = std::thread::spawn(move || { let x: Option<&u32> = None; println!("{:?} {} {:?}", r, total, m.len()); x.copied() });
    let _ = h.join();
    let p: *const i32 = std::ptr::null();
    if std::env::args().count() > 5 { unsafe { println!("{}", *p); } }
}
