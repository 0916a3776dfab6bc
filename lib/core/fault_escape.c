#include "fault_escape.h"

static __thread sigjmp_buf *escape __attribute__((tls_model("initial-exec")));

void vt_fault_escape_set(sigjmp_buf *to)
{
	escape = to;
}

sigjmp_buf *vt_fault_escape_current(void)
{
	return escape;
}

void vt_fault_escape_take(int signal_number, const siginfo_t *info)
{
	if (escape && (signal_number == SIGSEGV || signal_number == SIGBUS) && info &&
	    info->si_code > 0)
		siglongjmp(*escape, 1);
}
