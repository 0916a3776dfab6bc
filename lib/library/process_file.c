#include "process_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "../descriptors.h"
#include "../log.h"
#include "../report/output.h"
#include "destination.h"
#include "state.h"

static char written[4096];
static atomic_bool have_written;
static atomic_bool warned_checkpoint_write;

bool vt_process_file_json(int fd, void *report)
{
	return vt_report_write_json(report, fd);
}

/* Tells `vramtrace run` where a report went: appended to the list it made,
 * never creating it (the run may be over) nor following a symlink, ended
 * by a NUL (a path may hold a line break, never a NUL). One write(2), safe
 * in a signal handler; never a wait. */
static void note_written_unquieted(const char *path)
{
	/* O_NONBLOCK: a FIFO there with no reader fails with ENXIO, where
	 * open(2) would wait for one forever, and at exit, with the signals
	 * that end the program held until the report is done. O_NOCTTY: a
	 * terminal there never becomes a daemon's controlling one. */
	int list = open(vt_library.config.report_list,
			O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	/* Gone: the run is over, and nobody asks any more. */
	if (list < 0 && errno == ENOENT)
		return;
	char line[4097];
	size_t length = strlen(path);
	bool told = false;
	int error = errno;
	if (list >= 0 && length < sizeof(line)) {
		memcpy(line, path, length);
		line[length] = '\0';
		errno = ENOSPC; /* a short write says nothing */
		told = write(list, line, length + 1) == (ssize_t)(length + 1);
		error = errno;
	}
	if (list >= 0)
		close(list);
	static atomic_bool said;
	char shown[256];
	if (!told)
		vt_warn_once(&said, "cannot add this report to the list of vramtrace run (%s): %s",
			     vt_warn_text(vt_library.config.report_list, shown, sizeof(shown)),
			     strerror(error));
}

/* What the append may raise (SIGXFSZ past RLIMIT_FSIZE) is held back from
 * the program, wherever a report was written. */
static void note_written(const char *path)
{
	if (!vt_library.config.report_list[0])
		return;
	struct vt_stderr_guard quiet;
	vt_quiet_begin(&quiet);
	note_written_unquieted(path);
	vt_quiet_end(&quiet);
}

static bool put_unquieted(struct vt_report *report)
{
	if (atomic_load(&have_written))
		return vt_output_replace(written, vt_process_file_json, report);
	if (!vt_library.output_ok) {
		errno = vt_library.output_errno;
		return false;
	}
	if (!vt_output_write(vt_library.output_path, vt_process_file_json, report, written,
			     sizeof(written)))
		return false;
	atomic_store(&have_written, true);
	note_written(written);
	return true;
}

bool vt_process_file_put(struct vt_report *report)
{
	struct vt_stderr_guard quiet;
	vt_quiet_begin(&quiet);
	bool ok = put_unquieted(report);
	vt_quiet_end(&quiet); /* errno as the write left it */
	return ok;
}

/* The final report where its place refused it, in $TMPDIR instead. */
static bool put_in_fallback(struct vt_report *report, const char *failed, int error)
{
	char other[4096], refused[4096];
	snprintf(refused, sizeof(refused), "%s", failed); /* written is about to change */
	if (!vt_destination_fallback(refused, other, sizeof(other)))
		return false;
	struct vt_stderr_guard quiet;
	vt_quiet_begin(&quiet);
	bool ok = vt_output_write(other, vt_process_file_json, report, written, sizeof(written));
	vt_quiet_end(&quiet);
	if (!ok)
		return false;
	atomic_store(&have_written, true);
	note_written(written);
	vt_warn("cannot write the report to %s: %s; written to %s instead", refused,
		vt_output_reason(refused, error), written);
	return true;
}

/* The program's standard error is its own, not the place for a whole
 * document. */
bool vt_process_file_put_or_say(struct vt_report *report, bool final)
{
	if (vt_process_file_put(report))
		return true;
	int error = errno;
	bool written_before = atomic_load(&have_written);
	if (!written_before && !vt_library.output_ok)
		return false; /* said once already, on activation */
	const char *path = written_before ? written : vt_library.output_path;
	if (final && put_in_fallback(report, path, error))
		return true;
	if (final)
		vt_warn("cannot write the report to %s: %s; no report written", path,
			vt_output_reason(path, error));
	else
		vt_warn_once(&warned_checkpoint_write,
			     "cannot write a checkpoint to %s: %s; the final report will be tried "
			     "there again",
			     path, vt_output_reason(path, error));
	return false;
}

const char *vt_process_file_written(void)
{
	return written;
}

void vt_process_file_forget(void)
{
	atomic_store(&have_written, false);
}
