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
    /* The expected counts are those of the models gen/ wrote: 24 syscalls with 28 arguments, 10
     * apitrace events, 40 Orbit events and CaptureFinished. */
    struct { const char *name; int64_t got, want; } walks[] = {
        {"easyprofiler", tracecap_easyprofiler_count(), 21},
        {"syscall", tracecap_syscall_count(), 52},
        {"apitrace", tracecap_apitrace_count(), 10},
        {"wtf", tracecap_wtf_count(), 30},
        {"orbit", tracecap_orbit_count(), 41},
        {"wire", tracecap_wire_count(), 41},
    };
    int bad = 0;
    for (unsigned i = 0; i < sizeof walks / sizeof walks[0]; i++) {
        printf("%s: %lld records (expected %lld)\n", walks[i].name, (long long)walks[i].got,
               (long long)walks[i].want);
        bad |= walks[i].got != walks[i].want;
    }
    return bad;
}
