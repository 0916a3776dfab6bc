/* Where -o writes (cli.h): whole or not at all into a regular file, the
 * target of a symlink rather than the link, straight into a device or a
 * FIFO, with the mode the file had or the umask gives. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "json_build.h"

/* The temporary file being written, removed by a signal that ends the
 * command (Ctrl-C, kill, a closed terminal) before the signal takes its
 * course: it was left beside the target, half written. One output is open
 * at a time. */
static char *volatile pending;
static const int ending_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
static struct sigaction before[sizeof(ending_signals) / sizeof(ending_signals[0])];

static void remove_pending(int signal)
{
	char *temporary = pending;
	if (temporary)
		unlink(temporary);
	sigaction(signal, &(struct sigaction){.sa_handler = SIG_DFL}, NULL);
	raise(signal);
}

/* A signal ignored (nohup's SIGHUP) stays ignored. */
static void watch_signals(char *temporary)
{
	pending = temporary;
	for (size_t i = 0; i < sizeof(ending_signals) / sizeof(ending_signals[0]); i++) {
		sigaction(ending_signals[i], NULL, &before[i]);
		if (before[i].sa_handler != SIG_IGN)
			sigaction(ending_signals[i],
				  &(struct sigaction){.sa_handler = remove_pending}, NULL);
	}
}

static void unwatch_signals(void)
{
	if (!pending)
		return;
	pending = NULL;
	for (size_t i = 0; i < sizeof(ending_signals) / sizeof(ending_signals[0]); i++)
		sigaction(ending_signals[i], &before[i], NULL);
}

static void release(struct vt_cli_output *output)
{
	unwatch_signals();
	free(output->path);
	free(output->target);
	free(output->temporary);
	memset(output, 0, sizeof(*output));
}

/* The path a chain of symlinks from path ends at, existing or not (a
 * dangling link names the file to make); NULL with errno set (ELOOP past
 * 40 links). *magic: a link on the way lives in /proc (/dev/stdout's
 * /proc/self/fd/1), which names an open file, not a place to write. */
static char *resolve_links(const char *path, bool *magic)
{
	char *current = strdup(path);
	*magic = false;
	for (int hops = 0; current && hops < 40; hops++) {
		char target[PATH_MAX];
		ssize_t length = readlink(current, target, sizeof(target) - 1);
		if (length < 0)
			return current; /* not a link: the end of the chain */
		target[length] = '\0';
		*magic = *magic || strncmp(current, "/proc/", 6) == 0;
		const char *slash = strrchr(current, '/');
		char *next = NULL;
		if (target[0] == '/' || !slash)
			next = strdup(target);
		else if (asprintf(&next, "%.*s/%s", (int)(slash - current), current, target) < 0)
			next = NULL;
		free(current);
		current = next;
	}
	if (current)
		errno = ELOOP;
	free(current);
	return NULL;
}

static mode_t new_file_mode(void)
{
	mode_t mask = umask(0);
	umask(mask);
	return 0666 & ~mask;
}

/* Straight into path: a device, a FIFO, /dev/stdout. */
static bool open_through(struct vt_cli_output *output)
{
	int fd = open(output->path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	output->stream = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!output->stream && fd >= 0)
		close(fd);
	return output->stream != NULL;
}

/* A temporary file beside target, with the mode (and, for root, the
 * owner) of the file it replaces, or the umask's for a new one. */
static bool open_beside(struct vt_cli_output *output, const struct stat *existing)
{
	if (asprintf(&output->temporary, "%s.XXXXXX", output->target) < 0) {
		output->temporary = NULL;
		errno = ENOMEM;
		return false;
	}
	/* held until the handlers know the file: one that came between would
	 * end the command and leave it */
	sigset_t ending, before_mask;
	sigemptyset(&ending);
	for (size_t i = 0; i < sizeof(ending_signals) / sizeof(ending_signals[0]); i++)
		sigaddset(&ending, ending_signals[i]);
	sigprocmask(SIG_BLOCK, &ending, &before_mask);
	int fd = mkostemp(output->temporary, O_CLOEXEC);
	if (fd >= 0)
		watch_signals(output->temporary);
	int error = errno;
	sigprocmask(SIG_SETMASK, &before_mask, NULL);
	errno = error;
	if (fd < 0)
		return false;
	mode_t mode = existing ? existing->st_mode & 07777 : new_file_mode();
	if (existing && geteuid() == 0 && fchown(fd, existing->st_uid, existing->st_gid) != 0)
		mode &= 0777; /* no set-id bits on a file of another owner */
	output->stream = fchmod(fd, mode) == 0 ? fdopen(fd, "w") : NULL;
	if (!output->stream) {
		int saved = errno;
		close(fd);
		unlink(output->temporary);
		errno = saved;
	}
	return output->stream != NULL;
}

static bool open_file(struct vt_cli_output *output)
{
	struct stat st;
	bool exists = stat(output->path, &st) == 0;
	if (exists && S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return false;
	}
	if (exists && !S_ISREG(st.st_mode))
		return open_through(output);
	bool magic;
	output->target = resolve_links(output->path, &magic);
	if (!output->target)
		return false;
	if (magic)
		return open_through(output);
	return open_beside(output, exists ? &st : NULL);
}

bool vt_cli_output_open(struct vt_cli_output *output, const char *path, const char *command)
{
	memset(output, 0, sizeof(*output));
	if (!path || strcmp(path, "-") == 0) {
		output->stream = stdout;
		return true;
	}
	if (!*path) { /* was "cannot write : No such file or directory" */
		vt_diagnostic("vramtrace %s: -o wants a file name (- for standard output), not ''",
			      command);
		return false;
	}
	if (!(output->path = strdup(path)) || !open_file(output)) {
		int saved = errno;
		vt_diagnostic("vramtrace %s: cannot write %s: %s", command, path, strerror(saved));
		release(output);
		return false;
	}
	return true;
}

bool vt_cli_output_apart(const char *command, const char *path, const char *const *inputs,
			 size_t count)
{
	struct stat out, in;
	if (!path || strcmp(path, "-") == 0 || stat(path, &out) != 0 || !S_ISREG(out.st_mode))
		return true;
	for (size_t i = 0; i < count; i++) {
		bool from_stdin = strcmp(inputs[i], "-") == 0;
		if ((from_stdin ? fstat(STDIN_FILENO, &in) : stat(inputs[i], &in)) != 0 ||
		    in.st_dev != out.st_dev || in.st_ino != out.st_ino)
			continue;
		vt_diagnostic("vramtrace %s: -o %s would replace %s, a report it reads; give "
			      "another output file",
			      command, path, from_stdin ? "standard input" : inputs[i]);
		return false;
	}
	return true;
}

/* A document with a piece that could not be added (out of memory) is
 * never passed off as whole. */
static bool document_whole(struct vt_cli_output *output, const char *command)
{
	if (!vt_json_failed())
		return true;
	vt_diagnostic("vramtrace %s: out of memory building the output; %s", command,
		      output->temporary ? "nothing was written" : "what was written is incomplete");
	if (output->path)
		vt_cli_output_abort(output);
	return false;
}

bool vt_cli_output_commit(struct vt_cli_output *output, const char *command)
{
	if (!document_whole(output, command))
		return false;
	if (!output->path) /* flushed and said once, for every command, in main */
		return !ferror(stdout);
	errno = 0;
	bool ok = fflush(output->stream) == 0 && !ferror(output->stream);
	int saved = ok ? 0 : errno ? errno : EIO;
	if (fclose(output->stream) != 0 && ok) {
		ok = false;
		saved = errno;
	}
	if (ok && output->temporary && rename(output->temporary, output->target) != 0) {
		ok = false;
		saved = errno;
	}
	if (!ok) {
		vt_diagnostic("vramtrace %s: cannot write %s: %s", command, output->path,
			      strerror(saved));
		if (output->temporary)
			unlink(output->temporary);
	}
	release(output);
	return ok;
}

void vt_cli_output_abort(struct vt_cli_output *output)
{
	if (output->path) {
		fclose(output->stream);
		if (output->temporary)
			unlink(output->temporary);
	}
	release(output);
}
