/* Small file helpers shared by the readers. */
#ifndef PIPEOPT_FILEIO_H
#define PIPEOPT_FILEIO_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

/* Read a whole file (at most 64 MiB) into a new NUL-terminated buffer that
 * the caller frees; `what` names the kind of file in messages. */
enum status file_slurp(const char *path, const char *what, char **out,
		       struct error *err);

/* Write len bytes to path atomically: into "path.tmp.PID", then rename, so a
 * failure never leaves a partial file behind. path "-" writes to stdout; a
 * character device or named pipe (/dev/null, a FIFO) is written in place. */
enum status file_write_atomic(const char *path, const char *data, size_t len,
			      struct error *err);

/* Whether path is a character device or a named pipe (/dev/null, a FIFO):
 * a stream, written in place, with no file beside it to speak of. */
bool file_is_stream(const char *path);

#endif
