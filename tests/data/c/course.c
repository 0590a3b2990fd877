/* A hosted program in the style of a compilers course: calls, recursion, a switch,
   structs, strings and globals. The LLVM IR tests run it natively (printf). */
int printf(const char *, ...);
char *strcpy(char *, const char *);
struct S { int a; double b; char name[8]; };
int table[10] = {1,2,3,4,5,6,7,8,9,10};
const char *msg = "hello";
static int counter;
int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int gcd(int a, int b) { while (b) { int t = a % b; a = b; b = t; } return a; }
struct S make(int a) { struct S s = {a, a * 0.5, "abc"}; return s; }
void sort(int *a, int n) { for (int i = 0; i < n; i++) for (int j = 0; j + 1 < n - i; j++) if (a[j] > a[j+1]) { int t = a[j]; a[j] = a[j+1]; a[j+1] = t; } }
int classify(int x) { switch (x) { case 0: return 10; case 1: return 20; case 2: return 5; case 7: return 3; default: return -1; } }
long sumsq(long *v, unsigned n) { long s = 0; for (unsigned i = 0; i < n; i++) s += v[i] * v[i]; return s; }
float avg(float *f, int n) { float s = 0; for (int i = 0; i < n; i++) s += f[i]; return n ? s / n : 0.0f; }
int main(int argc, char **argv) {
  struct S s = make(argc); int a[5] = {5, 3, 1, 4, 2}; sort(a, 5); counter++;
  char buf[32]; strcpy(buf, msg);
  printf("%d %d %d %f %s %d %d\n", fib(10), gcd(12, 18), a[0], s.b, buf, classify(argc), table[3]);
  return 0;
}
