use std::collections::HashMap;
trait Shape { fn area(&self) -> f64; }
struct Sq(f64);
impl Shape for Sq { fn area(&self) -> f64 { self.0 * self.0 } }
fn generic<T: std::fmt::Debug + Clone>(v: &[T]) -> Vec<T> { v.iter().rev().cloned().collect() }
// v0 name features for the demangler's oracle: Punycode identifiers,
// const generics, function pointers with bound lifetimes and ABIs, dyn
// traits with associated types, arrays, one-tuples, raw pointers.
#[inline(never)] fn größe(x: u32) -> u32 { x.wrapping_mul(3) }
struct Arr<const N: usize>([u8; N]);
impl<const N: usize> Arr<N> { #[inline(never)] fn len(&self) -> usize { self.0.len() } }
#[inline(never)] fn consts<const B: bool, const C: char, const I: i32, const U: u64>() -> i64 { if B { I as i64 + C as i64 } else { U as i64 } }
#[inline(never)] fn type_name_of<T: ?Sized>() -> &'static str { std::any::type_name::<T>() }
fn features() -> usize {
    let mut n = größe(2) as usize + Arr([0u8; 4]).len() + Arr([0u8; 1]).len();
    n += consts::<true, 'x', -7, 5>() as usize + consts::<false, '\n', 0, 0xffff_ffff_ffff>() as usize + consts::<true, 'é', 1, 1>() as usize;
    n += type_name_of::<for<'a> fn(&'a u8) -> &'a u8>().len();
    n += type_name_of::<unsafe extern "C" fn(*mut i16, *const u64)>().len();
    n += type_name_of::<dyn Iterator<Item = (u8,)> + Send>().len();
    n += type_name_of::<[&mut [i128; 2]]>().len();
    n += type_name_of::<fn(&str) -> !>().len();
    n
}
fn main() {
    if std::env::args().count() > 7 { println!("{}", features()); }
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
