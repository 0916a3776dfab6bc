#include "python_code.h"
#include "memory.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CODES (1u << 20)

/* Copies are shared by content: the same code seen by several threads, or
 * again after a thread's cache let it go, keeps one id, so its stacks stay
 * one stack and the table grows only with code that differs. index holds
 * id + 1 per slot (0 for none), open addressing over twice the capacity. */
static struct {
	pthread_mutex_t lock;
	struct vt_py_code *codes;
	uint64_t *hashes;
	uint32_t *index;
	uint32_t count, capacity;
} table = {.lock = PTHREAD_MUTEX_INITIALIZER};

static uint64_t mix(uint64_t hash, const void *data, size_t size)
{
	const uint8_t *bytes = data;
	for (size_t i = 0; i < size; i++)
		hash = (hash ^ bytes[i]) * 0x100000001b3ull;
	return hash;
}

static uint64_t content_hash(const struct vt_py_code *code)
{
	const char *qualname = code->qualname ? code->qualname : "?";
	const char *filename = code->filename ? code->filename : "?";
	uint64_t hash = mix(0xcbf29ce484222325ull, qualname, strlen(qualname) + 1);
	hash = mix(hash, filename, strlen(filename) + 1);
	hash = mix(hash, &code->first_line, sizeof(code->first_line));
	hash = mix(hash, &code->format, sizeof(code->format));
	return mix(hash, code->line_table, code->line_table ? code->line_table_size : 0);
}

static bool same_content(const struct vt_py_code *a, const struct vt_py_code *b)
{
	size_t table_size = b->line_table ? b->line_table_size : 0;
	return strcmp(a->qualname, b->qualname ? b->qualname : "?") == 0 &&
	       strcmp(a->filename, b->filename ? b->filename : "?") == 0 &&
	       a->first_line == b->first_line && a->format == b->format &&
	       a->line_table_size == table_size &&
	       (!table_size || memcmp(a->line_table, b->line_table, table_size) == 0);
}

static uint32_t *index_slot(uint32_t *index, uint32_t slots, uint64_t hash, const uint64_t *hashes,
			    const struct vt_py_code *code)
{
	for (uint32_t at = (uint32_t)hash & (slots - 1);; at = (at + 1) & (slots - 1)) {
		uint32_t entry = index[at];
		if (!entry || (code && hashes[entry - 1] == hash &&
			       same_content(&table.codes[entry - 1], code)))
			return &index[at];
	}
}

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
	if (codes)
		table.codes = codes;
	uint64_t *hashes = vt_mem_realloc(table.hashes, capacity * sizeof(*hashes));
	if (hashes)
		table.hashes = hashes;
	uint32_t *index = vt_mem_calloc(2 * (size_t)capacity, sizeof(*index));
	if (!codes || !hashes || !index) {
		vt_mem_free(index);
		return false;
	}
	for (uint32_t id = 0; id < table.count; id++)
		*index_slot(index, 2 * capacity, table.hashes[id], table.hashes, NULL) = id + 1;
	vt_mem_free(table.index);
	table.index = index;
	table.capacity = capacity;
	return true;
}

/* The id of a copy with code's content, or UINT32_MAX. Under the lock. */
static uint32_t find(const struct vt_py_code *code, uint64_t hash)
{
	if (!table.index)
		return UINT32_MAX;
	uint32_t entry = *index_slot(table.index, 2 * table.capacity, hash, table.hashes, code);
	return entry ? entry - 1 : UINT32_MAX;
}

uint32_t vt_py_code_add(const struct vt_py_code *code)
{
	uint64_t hash = content_hash(code);
	pthread_mutex_lock(&table.lock);
	uint32_t id = find(code, hash);
	pthread_mutex_unlock(&table.lock);
	if (id != UINT32_MAX)
		return id;
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
	id = find(code, hash); /* another thread may have copied it meanwhile */
	bool added = false;
	if (id == UINT32_MAX && copy.qualname && copy.filename && grow()) {
		id = table.count++;
		table.codes[id] = copy;
		table.hashes[id] = hash;
		*index_slot(table.index, 2 * table.capacity, hash, table.hashes, NULL) = id + 1;
		added = true;
	}
	pthread_mutex_unlock(&table.lock);
	if (!added) {
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
