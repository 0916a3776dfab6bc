/* A dependency of libscope_outer.so, loaded with it RTLD_LOCAL: only its
 * loader's scope sees these names. */
int scope_inner_value = 7;
int cu_scope_inner_value = 11; /* a CUDA-like name, as a stub library's */
