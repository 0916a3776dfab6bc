/* The tool's side of the control endpoint (lib/control/endpoint.h): finds
 * the traced processes of this user and asks one for a report of this
 * moment. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The largest answer read: a report is never larger (report_file.h). */
#define VT_CONTROL_ANSWER_MAX (256u << 20)

/* The pids with a live control socket, ascending, at most max; stale
 * sockets (no process listening) are removed. Returns how many, or -1 with
 * error set when the directory cannot be read. */
int vt_control_list(pid_t *pids, int max, char *error, size_t size);

/* Sends request to pid and reads the whole answer into *data (malloc'd,
 * NUL-terminated); false with a one-line reason in error. */
bool vt_control_ask(pid_t pid, const char *request, char **data, size_t *length, char *error,
		    size_t size);

/* What one process answered: ok with data (malloc'd, NUL-terminated) and
 * length, or a one-line reason in error. */
struct vt_control_answer {
	bool ok;
	char *data;
	size_t length;
	char error[512];
};

/* Sends request to every one of pids at once and reads their answers into
 * answers (count of them, in the same order), all within one deadline: a
 * process that does not answer (stopped, say) costs the others nothing. */
void vt_control_ask_all(const pid_t *pids, size_t count, const char *request,
			struct vt_control_answer *answers);

struct vt_report_file;

/* A report of this moment from pid, checked and loaded into out (close it
 * with vt_report_close and free *data); false with a reason in error. */
bool vt_control_snapshot(pid_t pid, bool reset_peak, struct vt_report_file *out, char **data,
			 size_t *length, char *error, size_t size);

/* The answer data of pid checked and loaded as a snapshot into out, as
 * vt_control_snapshot does after asking; on failure *data is freed. */
bool vt_control_load_snapshot(pid_t pid, struct vt_report_file *out, char **data, size_t *length,
			      char *error, size_t size);

/* What vt_control_snapshot_all gives for each process, in the order
 * asked: taken owns out and data (vt_report_close, free); missed gets a
 * one-line reason. */
struct vt_control_visit {
	void (*taken)(pid_t pid, struct vt_report_file *out, char *data, void *context);
	void (*missed)(pid_t pid, const char *error, void *context);
	void *context;
};

/* Snapshots of the count processes of pids, each group asked at once (as
 * many as the open-file limit allows, raised to its ceiling): a process
 * that does not answer costs the others nothing. */
void vt_control_snapshot_all(const pid_t *pids, size_t count, const struct vt_control_visit *visit);

/* "123" as a pid, with a clear error naming the command. */
bool vt_parse_pid(const char *command, const char *text, pid_t *pid);
