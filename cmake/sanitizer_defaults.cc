// Linked into every executable of a -DZCAV_SANITIZE=ON build (zcav, the
// unit tests, the FUSE fixture): the sanitizers' default options, so that a
// sanitizer finding has an exit code of its own wherever the binary runs
// (ctest, the CLI harness, by hand). Without it an ASan abort exits 1, which
// is also zcav's "read error" exit, and a test expecting 1 would pass.
//   86  AddressSanitizer (and LeakSanitizer) finding
//   87  UndefinedBehaviorSanitizer finding (halts at the first one)
// ASAN_OPTIONS / UBSAN_OPTIONS in the environment still override these.
extern "C" {

const char* __asan_default_options() { return "exitcode=86:detect_leaks=1"; }

const char* __ubsan_default_options() {
  return "exitcode=87:halt_on_error=1:print_stacktrace=1";
}

}  // extern "C"
