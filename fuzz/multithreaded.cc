// Linked into every fuzz target: the process is multi-threaded before its
// first input. libFuzzer starts its RSS-limit thread while it runs the first
// inputs, and libstdc++ takes a different path through shared_ptr (yaml-cpp's
// nodes) once a process has had a second thread (glibc's
// __libc_single_threaded never goes back to true). Without this, the
// coverage of the first inputs depended on when that thread started, and two
// seeded runs (FUZZ_SEED) parted ways within their first inputs.
#include <thread>

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  std::thread([] {}).join();
  return 0;
}
