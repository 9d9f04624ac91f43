struct S { int a; char *b; };
static inline __attribute__((always_inline)) int inl(int x) { return x * 3 + 1; }
__declspec(noinline) int __stdcall leaf(struct S *s, int n) { volatile int k = n; return s->a + inl(k); }
__declspec(noinline) int __fastcall mid(int a, int b) { struct S s = {a, 0}; return leaf(&s, b) + 2; }
int mainCRTStartup(void) { return mid(1, 2); }
