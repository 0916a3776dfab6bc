#include "python_code.h"
#include "memory.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CODES (1u << 20)

static struct {
	pthread_mutex_t lock;
	struct vt_py_code *codes;
	uint32_t count, capacity;
} table = {.lock = PTHREAD_MUTEX_INITIALIZER};

static char *copy_text(const char *text)
{
	const char *from = text ? text : "?";
	size_t size = strlen(from) + 1;
	char *copy = vt_mem_alloc(size);
	return copy ? memcpy(copy, from, size) : NULL;
}

static bool grow(void)
{
	if (table.count < table.capacity)
		return true;
	uint32_t capacity = table.capacity ? table.capacity * 2 : 256;
	if (capacity > MAX_CODES)
		return false;
	struct vt_py_code *codes = vt_mem_realloc(table.codes, capacity * sizeof(*codes));
	if (!codes)
		return false;
	table.codes = codes;
	table.capacity = capacity;
	return true;
}

uint32_t vt_py_code_add(const struct vt_py_code *code)
{
	struct vt_py_code copy = {
		.qualname = copy_text(code->qualname),
		.filename = copy_text(code->filename),
		.first_line = code->first_line,
		.format = code->format,
		.line_table_size = code->line_table_size,
	};
	uint8_t *line_table = code->line_table_size ? vt_mem_alloc(code->line_table_size) : NULL;
	if (line_table)
		memcpy(line_table, code->line_table, code->line_table_size);
	else
		copy.line_table_size = 0;
	copy.line_table = line_table;
	pthread_mutex_lock(&table.lock);
	uint32_t id = UINT32_MAX;
	if (copy.qualname && copy.filename && grow()) {
		id = table.count++;
		table.codes[id] = copy;
	}
	pthread_mutex_unlock(&table.lock);
	if (id == UINT32_MAX) {
		vt_mem_free((char *)copy.qualname);
		vt_mem_free((char *)copy.filename);
		vt_mem_free(line_table);
	}
	return id;
}

bool vt_py_code_get(uint32_t id, struct vt_py_code *out)
{
	pthread_mutex_lock(&table.lock);
	bool known = id < table.count;
	if (known)
		*out = table.codes[id];
	pthread_mutex_unlock(&table.lock);
	return known;
}

/* The location table's numbers: 6 bits a byte, bit 6 saying more follow. */
static uint32_t varint(const uint8_t **at, const uint8_t *end)
{
	uint32_t value = 0;
	unsigned shift = 0;
	while (*at < end) {
		uint8_t byte = *(*at)++;
		value |= (uint32_t)(byte & 63) << shift;
		shift += 6;
		if (!(byte & 64) || shift > 30)
			break;
	}
	return value;
}

static int svarint(const uint8_t **at, const uint8_t *end)
{
	uint32_t value = varint(at, end);
	return value & 1 ? -(int)(value >> 1) : (int)(value >> 1);
}

/* 3.10: (byte delta, line delta) pairs, a line delta of -128 for none. */
static int line_310(const struct vt_py_code *code, uint32_t offset)
{
	int line = code->first_line, found = code->first_line;
	uint32_t end = 0;
	for (size_t i = 0; i + 1 < code->line_table_size; i += 2) {
		uint32_t start = end;
		end += code->line_table[i];
		int8_t delta = (int8_t)code->line_table[i + 1];
		if (delta != -128)
			line += delta;
		if (offset >= start && offset < end)
			return delta == -128 ? found : line;
		if (delta != -128)
			found = line;
	}
	return found;
}

/* 3.9: (byte increment, line increment) pairs, up to the offset. */
static int line_lnotab(const struct vt_py_code *code, uint32_t offset)
{
	int line = code->first_line;
	uint32_t address = 0;
	for (size_t i = 0; i + 1 < code->line_table_size; i += 2) {
		address += code->line_table[i];
		if (address > offset)
			break;
		line += (int8_t)code->line_table[i + 1];
	}
	return line;
}

int vt_py_code_line(const struct vt_py_code *code, uint32_t instruction)
{
	if (code->format == VT_PY_LINETABLE_310)
		return line_310(code, instruction);
	if (code->format == VT_PY_LNOTAB)
		return line_lnotab(code, instruction);
	const uint8_t *at = code->line_table, *end = at + code->line_table_size;
	int line = code->first_line;
	uint32_t start = 0;
	while (at < end) {
		uint8_t first = *at++;
		if (!(first & 128))
			break; /* not the start of an entry: the table is not one we know */
		unsigned kind = (first >> 3) & 15, length = (first & 7) + 1;
		int delta = 0;
		bool none = false;
		if (kind == 15) {
			none = true;
		} else if (kind == 14) {
			delta = svarint(&at, end);
			varint(&at, end); /* end line */
			varint(&at, end); /* column */
			varint(&at, end); /* end column */
		} else if (kind == 13) {
			delta = svarint(&at, end);
		} else if (kind >= 10) {
			delta = (int)kind - 10;
			at += 2; /* columns */
		} else {
			at += 1; /* column */
		}
		line += delta;
		if (instruction < start + length)
			return none ? code->first_line : line;
		start += length;
	}
	return code->first_line;
}

bool vt_py_frame_resolve(uintptr_t frame, const char **qualname, const char **filename, int *line)
{
	struct vt_py_code code;
	if (!vt_py_is_frame(frame) || !vt_py_code_get(vt_py_frame_code(frame), &code))
		return false;
	*qualname = code.qualname;
	*filename = code.filename;
	*line = vt_py_code_line(&code, (uint32_t)frame);
	return true;
}
