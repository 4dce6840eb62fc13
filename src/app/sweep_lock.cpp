#include "app/sweep_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::app {

SweepDirectoryLock::SweepDirectoryLock(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir / kSweepLockName;
  const std::string shown = quote_for_message(path.string(), 200);
  // Never through a link planted at its name, never a FIFO (O_NONBLOCK) or a device.
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (fd_ < 0) {
    const int error = errno;
    throw IoError("cannot open the sweep's lock " + shown + ": " +
                  (error == ELOOP ? std::string("it is a symbolic link") : std::strerror(error)));
  }
  struct stat held {}, named {};
  if (::fstat(fd_, &held) != 0 || !S_ISREG(held.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw IoError("the sweep's lock " + shown + " is not a regular file");
  }
  while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    if (error == EINTR) continue;
    ::close(fd_);
    fd_ = -1;
    if (error == EWOULDBLOCK)
      throw InvalidInput("--out " + quote_for_message(dir.string(), 200) +
                         " is in use by another mechint sweep (it holds " + kSweepLockName +
                         "): two sweeps in one directory would mix their members; wait for it, or choose another "
                         "directory");
    throw IoError("cannot lock " + shown + ": " + std::strerror(error));
  }
  // The name must still be the file locked: one replaced meanwhile would let another sweep lock it.
  if (::stat(path.c_str(), &named) != 0 || named.st_ino != held.st_ino || named.st_dev != held.st_dev) {
    ::close(fd_);
    fd_ = -1;
    throw InvalidInput("--out " + quote_for_message(dir.string(), 200) + ": its " + kSweepLockName +
                       " was replaced while this sweep locked it (another sweep is starting there): try again");
  }
}

SweepDirectoryLock::~SweepDirectoryLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace mechint::app
