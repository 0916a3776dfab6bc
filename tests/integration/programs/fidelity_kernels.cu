// Kernels for sim_fidelity, built by nvcc -cudart shared: the runtime must
// load them into each device's context, whichever device launches first.
__global__ void fidelity_first(int *out, int value)
{
	out[threadIdx.x] = value;
}

__global__ void fidelity_second(int *out, int value)
{
	out[threadIdx.x] = value + 1;
}

// Launches kernel which (0 or 1) on the current device; its launch status.
extern "C" int fidelity_launch(int which, int *out, int value)
{
	if (which == 0)
		fidelity_first<<<1, 32>>>(out, value);
	else
		fidelity_second<<<1, 32>>>(out, value);
	return (int)cudaGetLastError();
}
