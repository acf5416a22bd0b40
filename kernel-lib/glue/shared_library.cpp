// libtpc_kernels.so: the glue code and the embedded kernel objects (the static library tpckernels, whole).
