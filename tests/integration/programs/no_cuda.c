/* No CUDA at all: output and status must be exactly as without vramtrace. */
#include <stdio.h>

int main(int argc, char **argv)
{
	printf("no_cuda: %d arguments, first '%s'\n", argc, argc > 1 ? argv[1] : "");
	fprintf(stderr, "no_cuda: to stderr\n");
	return 3;
}
