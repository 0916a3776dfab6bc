/* Replays every file of the saved fuzz corpus through the fuzz target, so
 * the normal suite keeps every input that ever crashed it. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay(const char *path)
{
	FILE *file = fopen(path, "rb");
	if (!file)
		return -1;
	size_t capacity = 1 << 16, size = 0;
	uint8_t *data = malloc(capacity);
	for (size_t got; data && (got = fread(data + size, 1, capacity - size, file)) > 0;) {
		size += got;
		if (size == capacity) {
			uint8_t *grown = realloc(data, capacity *= 2);
			if (!grown)
				break;
			data = grown;
		}
	}
	fclose(file);
	if (!data)
		return -1;
	LLVMFuzzerTestOneInput(data, size);
	free(data);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned replayed = 0;
	for (int a = 1; a < argc; a++) {
		DIR *dir = opendir(argv[a]);
		if (!dir) {
			fprintf(stderr, "corpus: cannot open %s\n", argv[a]);
			return 1;
		}
		for (struct dirent *entry; (entry = readdir(dir));) {
			if (entry->d_name[0] == '.')
				continue;
			char path[4096];
			snprintf(path, sizeof(path), "%s/%s", argv[a], entry->d_name);
			if (replay(path) != 0) {
				fprintf(stderr, "corpus: cannot read %s\n", path);
				closedir(dir);
				return 1;
			}
			replayed++;
		}
		closedir(dir);
	}
	printf("%u corpus inputs replayed\n", replayed);
	return replayed > 0 ? 0 : 1;
}
