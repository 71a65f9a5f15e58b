/* Links the no_std static library into a C program and checks each walk's count. */
#include <stdint.h>
#include <stdio.h>

int64_t tracecap_easyprofiler_count(void);
int64_t tracecap_syscall_count(void);
int64_t tracecap_apitrace_count(void);
int64_t tracecap_wtf_count(void);
int64_t tracecap_orbit_count(void);
int64_t tracecap_wire_count(void);

/* The host's prebuilt `core` is compiled for unwinding and names the personality routine; with
 * panic = "abort" nothing ever calls it. */
void rust_eh_personality(void) {}

int main(void) {
    /* The expected counts are those of the synthetic captures gen/ writes: EasyProfiler 2
     * thread heads, 2 context switches, 9 records and a bookmark; 10 syscalls with 25 arguments;
     * 8 apitrace calls (ENTER and LEAVE each); WTF 8 definitions and 14 other events; 16 Orbit
     * events ending at CaptureFinished. */
    struct { const char *name; int64_t got, want; } walks[] = {
        {"easyprofiler", tracecap_easyprofiler_count(), 14},
        {"syscall", tracecap_syscall_count(), 35},
        {"apitrace", tracecap_apitrace_count(), 16},
        {"wtf", tracecap_wtf_count(), 22},
        {"orbit", tracecap_orbit_count(), 16},
        {"wire", tracecap_wire_count(), 16},
    };
    int bad = 0;
    for (unsigned i = 0; i < sizeof walks / sizeof walks[0]; i++) {
        printf("%s: %lld records (expected %lld)\n", walks[i].name, (long long)walks[i].got,
               (long long)walks[i].want);
        bad |= walks[i].got != walks[i].want;
    }
    return bad;
}
