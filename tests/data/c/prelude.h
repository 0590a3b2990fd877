/* Freestanding test programs for schedcc's front-end tests: no libc, no calls
   (ld.lld 16 cannot resolve LoongArch call relocations), data on the stack.
   Inputs come through volatile variables so that the compiler cannot fold them.
   `finish(r)` exits with r & 255 as the status on LoongArch and RISC-V, or returns r from main elsewhere. */
#define INLINE static inline __attribute__((always_inline))
#ifdef __loongarch__
#define ENTRY void _start(void)
INLINE void finish(long r) {
    register long a0 __asm__("$a0") = r & 255;
    register long a7 __asm__("$a7") = 93; /* exit */
    __asm__ volatile("syscall 0" : : "r"(a0), "r"(a7) : "memory");
    __builtin_unreachable();
}
#elif defined(__riscv)
#define ENTRY void _start(void)
INLINE void finish(long r) {
    register long a0 __asm__("a0") = r & 255;
    register long a7 __asm__("a7") = 93; /* exit */
    __asm__ volatile("ecall" : : "r"(a0), "r"(a7) : "memory");
    __builtin_unreachable();
}
#else
#define ENTRY int main(void)
#define finish(r) return (int)((r) & 255)
#endif
