#define N __attribute__((noinline))
volatile int sink; volatile double dsink;
N int g(int x) { sink = x; return x + 1; }
N double h(double x) { dsink = x; return x + 1; }
__declspec(dllexport) N int leaf(int x) { return x * 3; }
__declspec(dllexport) N int calls(int x) { return g(x) + 1; }
__declspec(dllexport) N int big(int x) { volatile char buf[5000]; buf[x] = 1; return g(buf[x+1]) + 1; }
__declspec(dllexport) N int mid(int a, int b, int c, int d) { int r = g(a) + g(b) * g(c); sink = r; return r + g(d) + a + b + c + d; }
__declspec(dllexport) N double fl(double a, double b, double c) { double r = h(a) * h(b); r += h(r) * c; return r + a / b + h(c) + g(1); }
__declspec(dllexport) N int many(int a) { int x1=g(a),x2=g(x1),x3=g(x2),x4=g(x3),x5=g(x4),x6=g(x5),x7=g(x6),x8=g(x7),x9=g(x8),x10=g(x9); return x1+x2+x3+x4+x5+x6+x7+x8+x9+x10+g(x1*x2*x3*x4*x5*x6*x7*x8*x9*x10); }
__declspec(dllexport) N int odd(int a) { int x1=g(a),x2=g(x1),x3=g(x2); return x1+x2+x3+g(x1*x2*x3); }
__declspec(dllexport) N int vla(int n) { volatile char b[n]; b[0]=1; return g(b[0]) + g(n); }
__declspec(dllexport) N int vararg(int n, ...) { __builtin_va_list ap; __builtin_va_start(ap, n); int r = __builtin_va_arg(ap, int); __builtin_va_end(ap); return g(r); }
__declspec(dllexport) N int early(int n) { if (n > 3) return g(n) * 2; int a = g(n), b = g(a); return a + b; }
void __chkstk(void) {}
