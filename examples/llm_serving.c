/* An LLM server's memory, allocated the way one allocates it, so that
 * vramtrace has something realistic to measure: weights, a KV cache that
 * grows with sessions and context, per-step activations and a workspace,
 * and a pinned staging buffer for token input. No kernel does real work.
 *
 *   llm_serving --dtype bf16 --batch 8
 *   llm_serving --params 70000000000 --layers 80 --dtype fp8 --sessions 32
 *
 * It prints one summary line with the bytes it asked for; the tracked peak
 * equals weights + kv_cache + activations + workspace. Each kind of memory
 * is tagged through vramtrace.h, which does nothing without vramtrace. */
#include <cuda_runtime_api.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vramtrace.h"

struct model {
	uint64_t params;
	unsigned layers;
	unsigned kv_heads;
	unsigned head_dim;
	unsigned hidden;
	const char *dtype;
	unsigned dtype_bytes;
};

struct serving {
	unsigned sessions;
	unsigned context;
	unsigned batch;
	unsigned steps;
	uint64_t workspace;
	uint64_t staging;
};

struct sizes {
	uint64_t weights;
	uint64_t kv_cache;
	uint64_t activations;
	uint64_t workspace;
	uint64_t staging;
};

static unsigned dtype_bytes(const char *dtype)
{
	static const struct {
		const char *name;
		unsigned bytes;
	} dtypes[] = {{"fp32", 4}, {"fp16", 2}, {"bf16", 2}, {"fp8", 1}, {"int8", 1}};
	for (size_t i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); i++)
		if (strcmp(dtypes[i].name, dtype) == 0)
			return dtypes[i].bytes;
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out, "Usage: llm_serving [OPTIONS]\n"
		     "  --params N       parameters (default 7000000000)\n"
		     "  --layers N       transformer layers (default 32)\n"
		     "  --kv-heads N     key/value heads (default 8)\n"
		     "  --head-dim N     head size (default 128)\n"
		     "  --hidden N       hidden size (default 4096)\n"
		     "  --dtype T        fp32, fp16, bf16, fp8 or int8 (default bf16)\n"
		     "  --sessions N     concurrent sessions in the KV cache (default 8)\n"
		     "  --context N      tokens of context per session (default 4096)\n"
		     "  --batch N        sequences per step (default 8)\n"
		     "  --steps N        decode steps (default 4)\n"
		     "  --workspace N    workspace bytes (default 268435456)\n");
}

static int parse_number(const char *text, uint64_t *out)
{
	char *end;
	unsigned long long value = strtoull(text, &end, 10);
	if (!*text || *end || text[0] == '-')
		return -1;
	*out = value;
	return 0;
}

static int parse(int argc, char **argv, struct model *model, struct serving *serving)
{
	static const struct option options[] = {
		{"params", required_argument, NULL, 'p'},
		{"layers", required_argument, NULL, 'l'},
		{"kv-heads", required_argument, NULL, 'k'},
		{"head-dim", required_argument, NULL, 'd'},
		{"hidden", required_argument, NULL, 'H'},
		{"dtype", required_argument, NULL, 't'},
		{"sessions", required_argument, NULL, 's'},
		{"context", required_argument, NULL, 'c'},
		{"batch", required_argument, NULL, 'b'},
		{"steps", required_argument, NULL, 'n'},
		{"workspace", required_argument, NULL, 'w'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	for (int c; (c = getopt_long(argc, argv, "h", options, NULL)) != -1;) {
		uint64_t value = 0;
		if (c == 'h') {
			usage(stdout);
			exit(0);
		}
		if (c == 't') {
			model->dtype = optarg;
			model->dtype_bytes = dtype_bytes(optarg);
			if (!model->dtype_bytes)
				return -1;
			continue;
		}
		if (c == '?' || parse_number(optarg, &value) != 0 || value == 0 ||
		    (c != 'p' && c != 'w' && value > UINT32_MAX))
			return -1;
		switch (c) {
		case 'p': model->params = value; break;
		case 'l': model->layers = (unsigned)value; break;
		case 'k': model->kv_heads = (unsigned)value; break;
		case 'd': model->head_dim = (unsigned)value; break;
		case 'H': model->hidden = (unsigned)value; break;
		case 's': serving->sessions = (unsigned)value; break;
		case 'c': serving->context = (unsigned)value; break;
		case 'b': serving->batch = (unsigned)value; break;
		case 'n': serving->steps = (unsigned)value; break;
		case 'w': serving->workspace = value; break;
		}
	}
	return optind == argc ? 0 : -1;
}

/* Per layer: K and V for every session's every token. */
static uint64_t kv_layer_bytes(const struct model *model, const struct serving *serving)
{
	return (uint64_t)serving->sessions * serving->context * model->kv_heads * model->head_dim *
	       2 * model->dtype_bytes;
}

/* One step's intermediates: attention scores and MLP hidden state for the
 * batch, about four hidden-sized tensors per token. */
static uint64_t activation_bytes(const struct model *model, const struct serving *serving)
{
	return (uint64_t)serving->batch * serving->context * model->hidden * 4 * model->dtype_bytes;
}

static int check(cudaError_t rc, const char *what)
{
	if (rc == cudaSuccess)
		return 0;
	fprintf(stderr, "llm_serving: %s failed: %s\n", what, cudaGetErrorString(rc));
	return -1;
}

static int load_weights(const struct model *model, void **layers, struct sizes *sizes)
{
	VRAMTRACE_SCOPE("weights");
	uint64_t total = model->params * model->dtype_bytes;
	uint64_t per_layer = total / model->layers;
	for (unsigned l = 0; l < model->layers; l++) {
		uint64_t bytes = l + 1 == model->layers ? total - per_layer * l : per_layer;
		if (check(cudaMalloc(&layers[l], bytes), "cudaMalloc(weights)"))
			return -1;
		sizes->weights += bytes;
	}
	return 0;
}

static int allocate_kv_cache(const struct model *model, const struct serving *serving,
			     void **layers, struct sizes *sizes)
{
	VRAMTRACE_SCOPE("kv_cache");
	for (unsigned l = 0; l < model->layers; l++) {
		if (check(cudaMalloc(&layers[l], kv_layer_bytes(model, serving)), "cudaMalloc(kv)"))
			return -1;
		sizes->kv_cache += kv_layer_bytes(model, serving);
	}
	return 0;
}

/* Activations come from the stream-ordered pool and go back after the step,
 * so they are a transient peak a final snapshot would miss. */
static int decode_step(const struct model *model, const struct serving *serving,
		       cudaStream_t stream, struct sizes *sizes)
{
	void *activations, *workspace;
	uint64_t bytes = activation_bytes(model, serving);
	vramtrace_push("activations");
	cudaError_t rc = cudaMallocAsync(&activations, bytes, stream);
	vramtrace_pop();
	if (check(rc, "cudaMallocAsync(activations)"))
		return -1;
	vramtrace_push("workspace");
	rc = cudaMalloc(&workspace, serving->workspace);
	vramtrace_pop();
	if (check(rc, "cudaMalloc(workspace)"))
		return -1;
	sizes->activations = bytes;
	sizes->workspace = serving->workspace;
	check(cudaMemsetAsync(activations, 0, 4096, stream), "cudaMemsetAsync");
	check(cudaFreeAsync(activations, stream), "cudaFreeAsync");
	check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
	return check(cudaFree(workspace), "cudaFree(workspace)");
}

static void free_all(void **layers, unsigned count)
{
	for (unsigned l = 0; l < count; l++)
		if (layers[l])
			cudaFree(layers[l]);
}

static int serve(const struct model *model, const struct serving *serving, struct sizes *sizes)
{
	void **weights = (void **)calloc(model->layers, sizeof(void *));
	void **kv = (void **)calloc(model->layers, sizeof(void *));
	void *staging = NULL;
	cudaStream_t stream = NULL;
	int rc = !weights || !kv ? -1 : 0;
	if (rc == 0) {
		VRAMTRACE_SCOPE("staging");
		rc = check(cudaMallocHost(&staging, serving->staging), "cudaMallocHost(staging)");
	}
	sizes->staging = rc == 0 ? serving->staging : 0;
	if (rc == 0)
		rc = load_weights(model, weights, sizes);
	if (rc == 0)
		rc = allocate_kv_cache(model, serving, kv, sizes);
	if (rc == 0)
		rc = check(cudaStreamCreate(&stream), "cudaStreamCreate");
	for (unsigned s = 0; rc == 0 && s < serving->steps; s++)
		rc = decode_step(model, serving, stream, sizes);
	if (stream)
		cudaStreamDestroy(stream);
	if (weights)
		free_all(weights, model->layers);
	if (kv)
		free_all(kv, model->layers);
	if (staging)
		cudaFreeHost(staging);
	free(weights);
	free(kv);
	return rc;
}

int main(int argc, char **argv)
{
	struct model model = {7000000000ull, 32, 8, 128, 4096, "bf16", 2};
	struct serving serving = {8, 4096, 8, 4, 256ull << 20, 64ull << 20};
	if (parse(argc, argv, &model, &serving) != 0) {
		usage(stderr);
		return 2;
	}
	struct sizes sizes = {0};
	int rc = serve(&model, &serving, &sizes);
	uint64_t peak = sizes.weights + sizes.kv_cache + sizes.activations + sizes.workspace;
	printf("llm_serving: dtype=%s batch=%u sessions=%u context=%u weights=%llu kv_cache=%llu "
	       "activations=%llu workspace=%llu pinned=%llu expected_peak=%llu\n",
	       model.dtype, serving.batch, serving.sessions, serving.context,
	       (unsigned long long)sizes.weights, (unsigned long long)sizes.kv_cache,
	       (unsigned long long)sizes.activations, (unsigned long long)sizes.workspace,
	       (unsigned long long)sizes.staging, (unsigned long long)peak);
	return rc == 0 ? 0 : 1;
}
