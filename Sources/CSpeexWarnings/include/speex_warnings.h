#ifndef ECHOLAB_SPEEX_WARNINGS_H
#define ECHOLAB_SPEEX_WARNINGS_H

// speexdsp resets its echo canceller when the filter diverges and says so with
// fprintf(stderr, "warning: %s\n", "The echo canceller started acting funny and got slapped
// (reset). …") — compiled with _FORTIFY_SOURCE, that is a call to __fprintf_chk. This target
// defines __fprintf_chk in the program itself, which the dynamic linker prefers for
// libspeexdsp's call: the reset warning is counted (per thread, so parallel eval jobs each see
// their own) instead of printed; every other call is forwarded to glibc unchanged.

// Resets counted on this thread since the last call; the count starts again from 0.
unsigned long echolab_take_speex_resets(void);

#endif
