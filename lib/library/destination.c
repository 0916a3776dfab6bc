#include "destination.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../log.h"
#include "../report/output.h"
#include "state.h"

static atomic_bool warned_output;

/* With the working directory removed before the first CUDA call, a
 * relative template has no place: it goes to $TMPDIR (or /tmp) instead. */
static const char *fallback_directory(void)
{
	const char *tmpdir = getenv("TMPDIR");
	return tmpdir && tmpdir[0] == '/' ? tmpdir : "/tmp";
}

bool vt_destination_fallback(const char *failed, char *out, size_t size)
{
	const char *slash = strrchr(failed, '/'), *directory = fallback_directory();
	size_t length = slash ? (size_t)(slash - failed) : 0;
	if (!slash || (strlen(directory) == length && strncmp(directory, failed, length) == 0))
		return false;
	return (size_t)snprintf(out, size, "%s/%s", directory, slash + 1) < size;
}

/* template, expanded against directory (NULL: the working one); one that
 * names a directory takes default_name inside it. */
static bool expand_in(const char *directory, const char *template_path,
		      const char *default_template, char *out, size_t size)
{
	const struct vt_run *run = &vt_library.run;
	char default_name[256];
	return vt_output_expand_from(directory, template_path, run->pid, run->host, run->rank, out,
				     size) &&
	       vt_output_expand_from("/", default_template, run->pid, run->host, run->rank,
				     default_name, sizeof(default_name)) &&
	       vt_output_in_directory(out, size, default_name);
}

static bool expand_output(const char *directory)
{
	bool ok = expand_in(directory, vt_library.config.output, VT_CONFIG_DEFAULT_OUTPUT,
			    vt_library.output_path, sizeof(vt_library.output_path));
	vt_library.output_errno = ok ? 0 : errno;
	return ok;
}

/* The template as a warning shows it: one line, cut short. */
static const char *shown_output(char *out, size_t size)
{
	return vt_warn_text(vt_library.config.output, out, size);
}

static void resolve_in_fallback(int cwd_errno)
{
	char shown[VT_WARN_TEXT_SIZE];
	vt_library.output_ok = expand_output(fallback_directory());
	if (vt_library.output_ok)
		vt_warn_once(&warned_output,
			     "the working directory is gone (%s), so the relative VRAMTRACE_OUTPUT "
			     "'%s' has no place there; the report goes to %s instead",
			     strerror(cwd_errno), shown_output(shown, sizeof(shown)),
			     vt_library.output_path);
	else
		vt_warn_once(&warned_output,
			     "the working directory is gone (%s), so the relative VRAMTRACE_OUTPUT "
			     "'%s' has no place there, nor in %s (%s); no report will be "
			     "written",
			     strerror(cwd_errno), shown_output(shown, sizeof(shown)),
			     fallback_directory(), strerror(vt_library.output_errno));
	if (!vt_library.output_ok)
		vt_library.output_errno = cwd_errno;
}

void vt_destination_resolve(void)
{
	vt_library.output_ok = expand_output(NULL);
	if (vt_library.output_ok)
		return;
	if (vt_library.output_errno == ENAMETOOLONG) {
		char shown[VT_WARN_TEXT_SIZE];
		vt_warn_once(&warned_output,
			     "VRAMTRACE_OUTPUT '%s' expands to a path longer than %zu bytes; no "
			     "report will be written",
			     shown_output(shown, sizeof(shown)),
			     sizeof(vt_library.output_path) - 1);
		return;
	}
	resolve_in_fallback(vt_library.output_errno);
}

/* "vramtrace.%p.json" dumps to "vramtrace.%p.dump1.json", then dump2...:
 * never the name the final report takes. expanded is a path already
 * expanded. */
static bool dump_name(const char *expanded, char *out, size_t size)
{
	static atomic_uint dumps;
	const char *slash = strrchr(expanded, '/');
	const char *dot = strrchr(expanded, '.');
	size_t stem =
		dot && (!slash || dot > slash + 1) ? (size_t)(dot - expanded) : strlen(expanded);
	if ((size_t)snprintf(out, size, "%.*s.dump%u%s", (int)stem, expanded,
			     atomic_fetch_add(&dumps, 1) + 1, expanded + stem) < size)
		return true;
	errno = ENAMETOOLONG;
	return false;
}

bool vt_destination_dump(const char *path, char *out, size_t size)
{
	if (!path || !*path) {
		errno = vt_library.output_errno;
		return vt_library.output_ok && dump_name(vt_library.output_path, out, size);
	}
	const struct vt_run *run = &vt_library.run;
	char name[4096], base[256];
	if (!vt_output_expand_from("/", VT_CONFIG_DEFAULT_OUTPUT, run->pid, run->host, run->rank,
				   base, sizeof(base)) ||
	    !dump_name(base, name, sizeof(name)))
		return false;
	const char *slash = strrchr(name, '/');
	return vt_output_expand(path, run->pid, run->host, run->rank, out, size) &&
	       vt_output_in_directory(out, size, slash ? slash + 1 : name);
}
