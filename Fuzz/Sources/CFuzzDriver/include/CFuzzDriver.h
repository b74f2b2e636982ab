#ifndef C_FUZZ_DRIVER_H
#define C_FUZZ_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's entry point for programs that have a `main` of their own: parses libFuzzer's flags from the command
/// line and fuzzes `callback`. SwiftPM gives every executable target a `main` (it calls `<Module>_main`), so the
/// targets call this from there instead of using the `main` libFuzzer's runtime would supply.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
