/* include/vramtrace.h in strict C99: it compiles without warnings, and
 * without the library every call is a harmless -1. */
#include "vramtrace.h"

#include <stdio.h>

int main(void)
{
	int results = vramtrace_push("x") + vramtrace_pop() + vramtrace_tag_pointer(&results, "y") +
		      vramtrace_dump(NULL);
	if (1)
		vramtrace_pop();
	else
		vramtrace_push("never"); /* the calls bind like functions */
	printf("header_c99: %d\n", results);
	return results == -4 ? 0 : 1;
}
