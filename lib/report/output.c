#define _GNU_SOURCE
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool append(char *out, size_t size, size_t *used, const char *text)
{
	size_t length = strlen(text);
	if (*used + length >= size)
		return false;
	memcpy(out + *used, text, length + 1);
	*used += length;
	return true;
}

static bool expand_into(const char *template_path, int pid, const char *host, const char *rank,
			char *out, size_t size, size_t *used)
{
	char pid_text[16];
	snprintf(pid_text, sizeof(pid_text), "%d", pid);
	for (const char *p = template_path; *p; p++) {
		char literal[2] = {*p, '\0'};
		const char *piece = literal;
		if (*p == '%' && p[1]) {
			p++;
			piece = *p == 'p'   ? pid_text
				: *p == 'h' ? host
				: *p == 'r' ? (*rank ? rank : "0")
					    : NULL;
			if (!piece) {
				literal[0] = *p;
				piece = literal; /* %% and unknown escapes are literal */
				if (*p != '%' && !append(out, size, used, "%"))
					return false;
			}
		}
		if (!append(out, size, used, piece))
			return false;
	}
	return true;
}

bool vt_output_expand_from(const char *directory, const char *template_path, int pid,
			   const char *host, const char *rank, char *out, size_t size)
{
	size_t used = 0;
	out[0] = '\0';
	if (template_path[0] != '/') {
		if (directory && !append(out, size, &used, directory)) {
			errno = ENAMETOOLONG;
			return false;
		}
		if (!directory && !getcwd(out, size)) {
			if (errno == ERANGE)
				errno = ENAMETOOLONG;
			out[0] = '\0';
			return false; /* ENOENT: the working directory was removed */
		}
		used = strlen(out);
		if ((used == 0 || out[used - 1] != '/') && !append(out, size, &used, "/")) {
			errno = ENAMETOOLONG;
			return false;
		}
	}
	if (!expand_into(template_path, pid, host, rank, out, size, &used)) {
		errno = ENAMETOOLONG;
		return false;
	}
	return true;
}

bool vt_output_expand(const char *template_path, int pid, const char *host, const char *rank,
		      char *out, size_t size)
{
	return vt_output_expand_from(NULL, template_path, pid, host, rank, out, size);
}

bool vt_output_in_directory(char *path, size_t size, const char *name)
{
	size_t length = strlen(path);
	struct stat status;
	bool directory = length && (path[length - 1] == '/' ||
				    (stat(path, &status) == 0 && S_ISDIR(status.st_mode)));
	if (!directory)
		return true;
	const char *slash = strrchr(name, '/');
	const char *base = slash ? slash + 1 : name;
	const char *separator = path[length - 1] == '/' ? "" : "/";
	if ((size_t)snprintf(path + length, size - length, "%s%s", separator, base) >=
	    size - length) {
		path[length] = '\0';
		errno = ENAMETOOLONG;
		return false;
	}
	return true;
}

/* "dir/name.json" with n > 0 becomes "dir/name-n.json". */
static bool candidate_name(const char *path, unsigned n, char *out, size_t size)
{
	if (n == 0)
		return (size_t)snprintf(out, size, "%s", path) < size;
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(path, '.');
	size_t stem = dot && (!slash || dot > slash + 1) ? (size_t)(dot - path) : strlen(path);
	return (size_t)snprintf(out, size, "%.*s-%u%s", (int)stem, path, n, path + stem) < size;
}

static int create_temporary(const char *path, char *temporary, size_t size)
{
	for (unsigned attempt = 0; attempt < 100; attempt++) {
		if ((size_t)snprintf(temporary, size, "%s.%d.%u.tmp", path, (int)getpid(),
				     attempt) >= size) {
			errno = ENAMETOOLONG;
			return -1;
		}
		int fd =
			open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		/* 0600 whatever the program's umask: 0777 would leave a report
		 * its owner cannot read. */
		if (fd >= 0 && fchmod(fd, 0600) != 0) {
			int error = errno;
			close(fd);
			unlink(temporary);
			errno = error;
			return -1;
		}
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

static bool fill(int fd, vt_output_writer writer, void *context)
{
	bool ok = writer(fd, context) && fsync(fd) == 0;
	int saved_errno = errno;
	if (close(fd) != 0)
		ok = false;
	errno = saved_errno;
	return ok;
}

/* A file system without hard links (vfat, exFAT, many FUSE mounts) refuses
 * link(2) with one of these. */
static bool no_hard_links(int error)
{
	return error == EPERM || error == ENOTSUP || error == EOPNOTSUPP || error == ENOSYS;
}

/* The temporary given the name: by link(2), which never follows a symlink
 * at the target and never replaces a file, or, once the file system has
 * said it has no hard links, by rename(2) with RENAME_NOREPLACE, which
 * does neither either. */
static int place(const char *temporary, const char *name, bool *links)
{
	if (!*links)
		return renameat2(AT_FDCWD, temporary, AT_FDCWD, name, RENAME_NOREPLACE);
	if (link(temporary, name) == 0)
		return 0;
	if (!no_hard_links(errno))
		return -1;
	int refused = errno;
	*links = false;
	if (renameat2(AT_FDCWD, temporary, AT_FDCWD, name, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno == EINVAL)
		errno = refused; /* no RENAME_NOREPLACE there either: the link's word */
	return -1;
}

static bool publish(const char *temporary, const char *path, char *written, size_t written_size)
{
	char name[4096];
	bool links = true;
	for (unsigned n = 0; n < 1000; n++) {
		if (!candidate_name(path, n, name, sizeof(name))) {
			errno = ENAMETOOLONG;
			return false;
		}
		if (place(temporary, name, &links) == 0) {
			snprintf(written, written_size, "%s", name);
			return true;
		}
		if (errno != EEXIST)
			return false;
	}
	return false;
}

/* What an existing name is: a character device (/dev/null, a terminal) or
 * a FIFO is written to in place, as the user asked, even through a symlink
 * (/dev/stdout): no file can be overwritten that way. A block device or a
 * socket never is. */
enum target { TARGET_FILE, TARGET_SPECIAL, TARGET_REFUSED };

static enum target target_of(const char *path)
{
	struct stat status;
	if (stat(path, &status) != 0)
		return TARGET_FILE;
	if (S_ISCHR(status.st_mode) || S_ISFIFO(status.st_mode))
		return TARGET_SPECIAL;
	return S_ISBLK(status.st_mode) || S_ISSOCK(status.st_mode) ? TARGET_REFUSED : TARGET_FILE;
}

/* Opened without blocking (a FIFO with no reader fails with ENXIO rather
 * than hang the program) and never creating; checked again once open, then
 * written as any file is, but in place and without fsync. */
static bool write_special(const char *path, vt_output_writer writer, void *context)
{
	int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat status;
	int flags = fcntl(fd, F_GETFL);
	bool special = fstat(fd, &status) == 0 && !S_ISREG(status.st_mode) &&
		       !S_ISDIR(status.st_mode) && !S_ISBLK(status.st_mode);
	if (!special)
		errno = EEXIST; /* it changed under us: never written over */
	bool ok = special && flags >= 0 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 &&
		  writer(fd, context);
	int saved_errno = errno;
	bool closed = close(fd) == 0;
	if (ok && !closed)
		saved_errno = errno;
	errno = saved_errno;
	return ok && closed;
}

/* Special files are written in place; false with errno ENOTSUP for a
 * block device or a socket. */
static bool special_write(enum target target, const char *path, vt_output_writer writer,
			  void *context)
{
	if (target == TARGET_REFUSED) {
		errno = ENOTSUP;
		return false;
	}
	return write_special(path, writer, context);
}

bool vt_output_write(const char *path, vt_output_writer writer, void *context, char *written,
		     size_t written_size)
{
	enum target target = target_of(path);
	if (target != TARGET_FILE) {
		bool ok = special_write(target, path, writer, context);
		if (ok)
			snprintf(written, written_size, "%s", path);
		return ok;
	}
	char temporary[4096];
	int fd = create_temporary(path, temporary, sizeof(temporary));
	if (fd < 0)
		return false;
	bool ok = fill(fd, writer, context) && publish(temporary, path, written, written_size);
	int saved_errno = errno;
	unlink(temporary);
	errno = saved_errno;
	return ok;
}

const char *vt_output_reason(const char *path, int error)
{
	struct stat status;
	bool named = stat(path, &status) == 0;
	if (error == ENXIO && named && S_ISFIFO(status.st_mode))
		return "a FIFO no process has open for reading";
	if (error == ENOTSUP && named && (S_ISBLK(status.st_mode) || S_ISSOCK(status.st_mode)))
		return "a block device or a socket, never written to";
	return strerror(error);
}

bool vt_output_replace(const char *previous, vt_output_writer writer, void *context)
{
	/* Never a temporary renamed over /dev/null. */
	enum target target = target_of(previous);
	if (target != TARGET_FILE)
		return special_write(target, previous, writer, context);
	char temporary[4096];
	int fd = create_temporary(previous, temporary, sizeof(temporary));
	if (fd < 0)
		return false;
	/* rename(2) replaces the name itself, never what a symlink there
	 * points to. */
	bool ok = fill(fd, writer, context) && rename(temporary, previous) == 0;
	int saved_errno = errno;
	if (!ok)
		unlink(temporary);
	errno = saved_errno;
	return ok;
}
