#pragma once

#include <string>

namespace reluopt {

// Writes `text` to `path` so that a reader never sees a partial file and a failed write is an error.
//
// A regular file (or a new one) is written to a temporary file beside it (".NAME.XXXXXX" in the same
// directory, so the rename stays on one file system), flushed to disk with fsync, closed, and renamed over
// `path`: a run killed at any moment leaves either the old file or the new one, never a truncated one (at worst
// a stray temporary file). A target that cannot be replaced by a rename (a device such as /dev/full or
// /dev/stdout, a FIFO, a file in a directory where no new file can be created, such as /proc) is written in
// place instead, with every write and the close checked. A symbolic link is followed: the file it names is
// replaced, the link kept. The new file gets the usual permissions (0666 less the umask).
//
// Throws reluopt::Error naming `what` (e.g. "the JSON result"), the path and the system's reason.
void write_output_file(const std::string& path, const std::string& text, const std::string& what);

}  // namespace reluopt
