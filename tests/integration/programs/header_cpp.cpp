// include/vramtrace.h in C++: the scope class and macro, without the library.
#include "vramtrace.h"

#include <cstdio>

int main()
{
	int results = 0;
	{
		VRAMTRACE_SCOPE("weights");
		vramtrace::scope inner("inner");
		results = vramtrace_pop();
	}
	std::printf("header_cpp: %d\n", results);
	return results == -1 ? 0 : 1;
}
