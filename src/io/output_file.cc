// Output files that are complete or absent: a temporary file renamed into place, every step checked.
#include "io/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "reluopt/error.h"

namespace reluopt {

namespace {

// Closes the descriptor and removes the temporary file unless the write got as far as the rename.
class TemporaryFile {
 public:
  explicit TemporaryFile(std::string pattern) : name_(std::move(pattern)), fd_(mkstemp(name_.data())) {}
  ~TemporaryFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!renamed_ && fd_ != -1) ::unlink(name_.c_str());
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

  bool created() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  const std::string& name() const { return name_; }
  // The close's own result: on NFS and some full disks it is the first to report a failed write.
  int close() {
    const int rc = ::close(fd_);
    fd_ = -2;
    return rc;
  }
  void mark_renamed() { renamed_ = true; }

 private:
  std::string name_;
  int fd_;
  bool renamed_ = false;
};

[[noreturn]] void fail(const std::string& what, const std::string& path, int error) {
  throw Error("cannot write " + what + " to '" + path + "': " + std::strerror(error));
}

// write(2) until every byte is out (it may write less than asked, or be interrupted by a signal).
bool write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

void write_in_place(const std::string& path, const std::string& text, const std::string& what) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) fail(what, path, errno);
  if (!write_all(fd, text)) {
    const int error = errno;
    ::close(fd);
    fail(what, path, error);
  }
  if (::close(fd) != 0) fail(what, path, errno);
}

// The permissions a plain open(path, O_CREAT, 0666) would give: the old file's, or 0666 less the umask. The
// umask can only be read by setting it; output is written after the worker threads have ended.
mode_t new_file_mode(const struct stat* existing) {
  if (existing != nullptr) return existing->st_mode & 07777;
  const mode_t mask = ::umask(022);
  ::umask(mask);
  return 0666 & ~mask;
}

// The file a path names: a symbolic link is followed, so the rename replaces its target, not the link.
std::string resolved(const std::string& path) {
  struct stat link;
  if (::lstat(path.c_str(), &link) != 0 || !S_ISLNK(link.st_mode)) return path;
  char buffer[PATH_MAX];
  return ::realpath(path.c_str(), buffer) != nullptr ? std::string(buffer) : path;
}

}  // namespace

void write_output_file(const std::string& path, const std::string& text, const std::string& what) {
  const std::string target = resolved(path);
  struct stat existing;
  const bool exists = ::stat(target.c_str(), &existing) == 0;
  if (exists && !S_ISREG(existing.st_mode)) return write_in_place(path, text, what);
  // A rename would replace a file the user may not write; refuse as open(2) would.
  if (exists && ::access(target.c_str(), W_OK) != 0) fail(what, path, errno);

  const std::size_t slash = target.rfind('/');
  const std::string directory = slash == std::string::npos ? "." : target.substr(0, slash == 0 ? 1 : slash);
  const std::string name = slash == std::string::npos ? target : target.substr(slash + 1);
  TemporaryFile temporary(directory + (directory == "/" ? "." : "/.") + name + ".XXXXXX");
  if (!temporary.created()) {
    if (exists) return write_in_place(path, text, what);
    fail(what, path, errno);
  }
  if (!write_all(temporary.fd(), text) || ::fchmod(temporary.fd(), new_file_mode(exists ? &existing : nullptr)) != 0 ||
      ::fsync(temporary.fd()) != 0 || temporary.close() != 0)
    fail(what, path, errno);
  if (::rename(temporary.name().c_str(), target.c_str()) != 0) fail(what, path, errno);
  temporary.mark_renamed();
}

}  // namespace reluopt
