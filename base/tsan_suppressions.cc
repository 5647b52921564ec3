// ThreadSanitizer's suppressions for Pollen's own TSan builds (POLLEN_SANITIZE=thread;
// scripts/sanitize.sh, docs/development.md "Sanitizer runs"), linked into every executable
// of such a build (the fuzz targets too, which do not read it), so that they hold wherever
// it runs (the test network namespaces too) with no TSAN_OPTIONS to pass along.
//
// TSan sees the synchronisation of instrumented code only. These libraries come from Debian
// without TSan, so memory that their own threads and queues hand over (a ZeroMQ message
// between a socket's user and libzmq's I/O thread, RocksDB's compactions, cpp-httplib's
// thread pool) shows as races. A report is suppressed when a frame of one of them is in
// either access's stack; a race between two of Pollen's own frames is still reported
// (memory handed over by an inproc ZeroMQ message is annotated: net/tsan_handoff.h).
//
// Two more, by name, because the library's frames do not show: RocksDB's group commit,
// where the thread that leads a write group copies the other writers' batches (written by
// them before they joined, behind RocksDB's own uninstrumented wait), appears as our
// CorpusStore's PutEntries or PutAux copying another thread's string; and spdlog's
// registry, built on first use inside libspdlog, appears as a logger read unsynchronised
// with its construction. The cost: a race of Pollen's own inside PutEntries or PutAux
// (PushedCorpus writes from a background thread) would be suppressed too; annotating
// RocksDB's hand-over instead is not possible from outside it.
extern "C" const char* __tsan_default_suppressions() {
  return "called_from_lib:libzmq.so\n"
         "race:libzmq.so\n"
         "race:libsodium.so\n"
         "race:librocksdb.so\n"
         "race:libzstd.so\n"
         "race:libcpp-httplib.so\n"
         "race:libspdlog.so\n"
         "race:pollen::storage::CorpusStore::PutEntries\n"
         "race:pollen::storage::CorpusStore::PutAux\n";
}
