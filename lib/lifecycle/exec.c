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
#include "../library/ending.h"
#include "../sources/call.h"
#include "../sources/real.h"

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);

static void *real_function(const char *name)
{
	return vt_real_dlsym(RTLD_NEXT, name);
}

VT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	execve_fn real = (execve_fn)real_function("execve");
	vt_library_before_exec();
	return real ? real(path, argv, envp) : (errno = ENOSYS, -1);
}

VT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	execve_fn real = (execve_fn)real_function("execvpe");
	vt_library_before_exec();
	return real ? real(file, argv, envp) : (errno = ENOSYS, -1);
}

VT_EXPORT int execv(const char *path, char *const argv[])
{
	execv_fn real = (execv_fn)real_function("execv");
	vt_library_before_exec();
	return real ? real(path, argv) : (errno = ENOSYS, -1);
}

VT_EXPORT int execvp(const char *file, char *const argv[])
{
	execv_fn real = (execv_fn)real_function("execvp");
	vt_library_before_exec();
	return real ? real(file, argv) : (errno = ENOSYS, -1);
}

VT_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	fexecve_fn real = (fexecve_fn)real_function("fexecve");
	vt_library_before_exec();
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
