#ifndef ECHOLAB_FUZZ_DRIVER_H
#define ECHOLAB_FUZZ_DRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver, linked in by `-sanitize=fuzzer`. SwiftPM makes every executable's `main`
/// an alias of `<module>_main`, so libFuzzer's own `main` cannot be used: each target's
/// `<module>_main` calls this instead, which is exactly what libFuzzer's `main` does.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
