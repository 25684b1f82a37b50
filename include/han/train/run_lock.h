#pragma once
// One run per folder: a run holds an exclusive lock on its folder (flock on FOLDER/.han.lock,
// which names the holder) from before it looks at the folder until it ends. A second run
// on the same folder is refused at once, naming the holder. The kernel drops the lock when
// its process dies, so the lock of a killed run is taken over by the next one.
#include <string>

namespace han {

class RunLock {
 public:
  // Locks `folder` (which exists) for `holder` ("han train"), or throws han::Error
  // "FOLDER is in use by han train (pid N)...". A folder this process holds already is
  // not locked twice: the lock taken first stands until it is released. `made_folder`: the run made the folder, and
  // removes it again at the end if it is still empty (a run that failed before writing).
  RunLock(const std::string& folder, const std::string& holder, bool made_folder = false);
  ~RunLock();  // removes the lock file, then unlocks (and the folder it made, if empty)
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

  static constexpr const char* kFileName = ".han.lock";

 private:
  std::string folder_, path_;
  int fd_ = -1;
  bool made_folder_ = false;
};

// For a process ending at once on a signal (_exit, no destructors): removes the lock file
// of the RunLock alive, and the folder it made if that is empty. Async-signal-safe.
void remove_run_lock_at_exit() noexcept;

}  // namespace han
