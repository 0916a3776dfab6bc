/* exec replaces the process: nothing of it runs afterwards, no destructor
 * included, so the report is written just before. Every exec function is
 * wrapped, since glibc's execvp and execl reach execve internally, where no
 * interposer sees them. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>

#include "../config.h"
#include "../core/sink.h"
#include "../sources/call.h"
#include "../sources/real.h"

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);

#define MAX_ARGUMENTS 4096

static void *real_function(const char *name)
{
	return vt_real_dlsym(RTLD_NEXT, name);
}

VT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	execve_fn real = (execve_fn)real_function("execve");
	vt_sink.before_exec();
	return real ? real(path, argv, envp) : (errno = ENOSYS, -1);
}

VT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	execve_fn real = (execve_fn)real_function("execvpe");
	vt_sink.before_exec();
	return real ? real(file, argv, envp) : (errno = ENOSYS, -1);
}

VT_EXPORT int execv(const char *path, char *const argv[])
{
	execv_fn real = (execv_fn)real_function("execv");
	vt_sink.before_exec();
	return real ? real(path, argv) : (errno = ENOSYS, -1);
}

VT_EXPORT int execvp(const char *file, char *const argv[])
{
	execv_fn real = (execv_fn)real_function("execvp");
	vt_sink.before_exec();
	return real ? real(file, argv) : (errno = ENOSYS, -1);
}

VT_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	fexecve_fn real = (fexecve_fn)real_function("fexecve");
	vt_sink.before_exec();
	return real ? real(fd, argv, envp) : (errno = ENOSYS, -1);
}

/* The list forms gather their arguments, then go through the vector forms. */
static int gather(const char *first, va_list *args, char **argv, char ***envp)
{
	int count = 0;
	argv[count++] = (char *)first;
	while (argv[count - 1]) {
		if (count == MAX_ARGUMENTS) {
			errno = E2BIG;
			return -1;
		}
		argv[count++] = va_arg(*args, char *);
	}
	if (envp)
		*envp = va_arg(*args, char **);
	return 0;
}

VT_EXPORT int execl(const char *path, const char *arg, ...)
{
	char *argv[MAX_ARGUMENTS];
	va_list args;
	va_start(args, arg);
	int rc = gather(arg, &args, argv, NULL);
	va_end(args);
	return rc ? rc : execv(path, argv);
}

VT_EXPORT int execlp(const char *file, const char *arg, ...)
{
	char *argv[MAX_ARGUMENTS];
	va_list args;
	va_start(args, arg);
	int rc = gather(arg, &args, argv, NULL);
	va_end(args);
	return rc ? rc : execvp(file, argv);
}

VT_EXPORT int execle(const char *path, const char *arg, ...)
{
	char *argv[MAX_ARGUMENTS];
	char **envp = NULL;
	va_list args;
	va_start(args, arg);
	int rc = gather(arg, &args, argv, &envp);
	va_end(args);
	return rc ? rc : execve(path, argv, envp);
}
