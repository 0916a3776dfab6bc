/* exec replaces the process: nothing of it runs afterwards, no destructor
 * included, so the report is written just before. Every exec function is
 * wrapped, since glibc's execvp and execl reach execve internally, where no
 * interposer sees them. An exec the kernel is sure to refuse writes none:
 * a program that tries one execve per PATH entry (Python's os.execvp) gets
 * one report, from the attempt that replaces it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../config.h"
#include "../library/ending.h"
#include "../library/state.h"
#include "../sources/call.h"
#include "../sources/real.h"

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);

static void *real_function(const char *name)
{
	return vt_real_dlsym(RTLD_NEXT, name);
}

/* The error the kernel is sure to refuse path with (as execveat takes
 * it), 0 when it could run it: the file missing, out of reach, not a
 * regular file or not one this process may run, or a script named through
 * a close-on-exec descriptor (its interpreter could not open it: ENOENT).
 * Any doubt (an error of another kind, a kernel without AT_EMPTY_PATH for
 * faccessat) says 0. System calls that open nothing, async-signal-safe;
 * errno is left as it was, for the exec to set. */
static bool refused(int error)
{
	return error == ENOENT || error == ENOTDIR || error == EACCES || error == ELOOP ||
	       error == ENAMETOOLONG || error == EBADF;
}

/* The kernel names a file reached through a descriptor /dev/fd/N[/path] to
 * its interpreter; with the descriptor closed by the exec, a script fails. A
 * descriptor that cannot be read (O_PATH) leaves the doubt. */
static bool script_behind_closing_descriptor(int dirfd, const char *path, int flags)
{
	if (dirfd == AT_FDCWD || path[0] == '/')
		return false;
	int descriptor_flags = fcntl(dirfd, F_GETFD);
	if (descriptor_flags < 0 || !(descriptor_flags & FD_CLOEXEC))
		return false;
	char magic[2];
	return path[0] == '\0' && (flags & AT_EMPTY_PATH) &&
	       pread(dirfd, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) && magic[0] == '#' &&
	       magic[1] == '!';
}

static int refusal(int dirfd, const char *path, int flags)
{
	int saved_errno = errno;
	int lookup = flags & (AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH);
	struct stat file;
	int error = 0;
	if (fstatat(dirfd, path, &file, lookup) != 0)
		error = refused(errno) ? errno : 0;
	else if (S_ISLNK(file.st_mode))
		error = ELOOP; /* a link not followed */
	else if (!S_ISREG(file.st_mode))
		error = EACCES;
	else if (faccessat(dirfd, path, X_OK, AT_EACCESS | lookup) != 0)
		error = errno == EACCES ? EACCES : 0;
	else if (script_behind_closing_descriptor(dirfd, path, flags))
		error = ENOENT;
	errno = saved_errno;
	return error;
}

static bool could_run(int dirfd, const char *path, int flags)
{
	return refusal(dirfd, path, flags) == 0;
}

/* Whether glibc's search goes on past an entry the kernel refused with
 * error (posix/execvpe.c): any other error ends it, the exec failing. */
static bool search_goes_on(int error)
{
	return error == EACCES || error == ENOENT || error == ENOTDIR;
}

/* glibc's search along PATH (posix/execvpe.c): a name with a slash is run
 * as it is; otherwise each entry of PATH (/bin:/usr/bin without one, an
 * empty entry for the current directory) until one runs or one fails in a
 * way that ends the search (ELOOP, ENAMETOOLONG). A candidate too long for
 * the buffer counts as possible, unless too long for any path. */
static bool could_run_searched(const char *file)
{
	if (!file || strchr(file, '/'))
		return !file || could_run(AT_FDCWD, file, 0);
	const char *path = getenv("PATH");
	if (!path)
		path = "/bin:/usr/bin";
	size_t file_length = strlen(file);
	char candidate[1024];
	for (const char *entry = path;; entry++) {
		const char *end = strchrnul(entry, ':');
		size_t length = (size_t)(end - entry);
		int error;
		if (length + 1 + file_length >= PATH_MAX) {
			error = ENAMETOOLONG;
		} else if (length + 1 + file_length >= sizeof(candidate)) {
			return true;
		} else {
			memcpy(candidate, entry, length);
			if (length)
				candidate[length++] = '/';
			memcpy(candidate + length, file, file_length + 1);
			error = refusal(AT_FDCWD, candidate, 0);
		}
		if (!error)
			return true;
		if (!search_goes_on(error) || !*end)
			return false;
		entry = end;
	}
}

/* The report for an exec that could replace the process; a process that
 * traces nothing (a vfork child included) pays no check. */
static void before_exec_at(int dirfd, const char *path, int flags)
{
	if (vt_library_traces_here() && could_run(dirfd, path, flags))
		vt_library_before_exec();
}

static void before_exec_searched(const char *file)
{
	if (vt_library_traces_here() && could_run_searched(file))
		vt_library_before_exec();
}

VT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	execve_fn real = (execve_fn)real_function("execve");
	before_exec_at(AT_FDCWD, path, 0);
	return real ? real(path, argv, envp) : (errno = ENOSYS, -1);
}

VT_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
		       int flags)
{
	execveat_fn real = (execveat_fn)real_function("execveat");
	before_exec_at(dirfd, path, flags);
	return real ? real(dirfd, path, argv, envp, flags) : (errno = ENOSYS, -1);
}

VT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	execve_fn real = (execve_fn)real_function("execvpe");
	before_exec_searched(file);
	return real ? real(file, argv, envp) : (errno = ENOSYS, -1);
}

VT_EXPORT int execv(const char *path, char *const argv[])
{
	execv_fn real = (execv_fn)real_function("execv");
	before_exec_at(AT_FDCWD, path, 0);
	return real ? real(path, argv) : (errno = ENOSYS, -1);
}

VT_EXPORT int execvp(const char *file, char *const argv[])
{
	execv_fn real = (execv_fn)real_function("execvp");
	before_exec_searched(file);
	return real ? real(file, argv) : (errno = ENOSYS, -1);
}

VT_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	fexecve_fn real = (fexecve_fn)real_function("fexecve");
	before_exec_at(fd, "", AT_EMPTY_PATH);
	return real ? real(fd, argv, envp) : (errno = ENOSYS, -1);
}

/* The list forms gather their arguments, as many as there are (glibc's own
 * take any number, on the stack), then go through the vector forms. */
static size_t count_arguments(va_list *args)
{
	size_t count = 1; /* the first, named (never NULL, as for glibc) */
	while (va_arg(*args, char *))
		count++;
	return count;
}

static void gather(const char *first, va_list *args, char **argv, size_t count, char ***envp)
{
	argv[0] = (char *)first;
	for (size_t i = 1; i <= count; i++)
		argv[i] = va_arg(*args, char *); /* the last is the NULL */
	if (envp)
		*envp = va_arg(*args, char **);
}

/* argv on the caller's stack, sized by a first pass over the list. */
#define GATHERED(first, argv, envp)                \
	va_list counting;                          \
	va_start(counting, first);                 \
	size_t count = count_arguments(&counting); \
	va_end(counting);                          \
	char *argv[count + 1];                     \
	va_list args;                              \
	va_start(args, first);                     \
	gather(first, &args, argv, count, envp);   \
	va_end(args)

VT_EXPORT int execl(const char *path, const char *arg, ...)
{
	GATHERED(arg, argv, NULL);
	return execv(path, argv);
}

VT_EXPORT int execlp(const char *file, const char *arg, ...)
{
	GATHERED(arg, argv, NULL);
	return execvp(file, argv);
}

VT_EXPORT int execle(const char *path, const char *arg, ...)
{
	char **envp = NULL;
	GATHERED(arg, argv, &envp);
	return execve(path, argv, envp);
}
