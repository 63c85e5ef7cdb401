// The translation unit that owns ampbench's shared LibTorch precompiled header
// (cmake/AmpbenchPrecompiledHeaders.cmake); it has no code of its own.
