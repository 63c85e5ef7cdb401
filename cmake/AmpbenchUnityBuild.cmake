# Unity builds whose batch files name their sources relative to themselves. CMake's own batch files
# (before 3.32's UNITY_BUILD_RELOCATABLE) include each source by its absolute path, so that in a
# clone at another path every batch is a new text to ccache and none of them is served from the
# cache. ampbench_relocatable_unity_builds() therefore takes over the unity build of every target
# whose UNITY_BUILD is on: its C++ sources in the checkout, in their order and in batches of
# CMAKE_UNITY_BUILD_BATCH_SIZE as CMake would group them, each batch a file in the build tree that
# includes them by a relative path. Sources with compile properties of their own and sources the
# build generates compile alone, as they do in CMake's unity build.

# Whether the source has properties that a batch could not give it alone.
function(_ampbench_compiles_alone target source out)
  set(alone OFF)
  foreach(property IN ITEMS INCLUDE_DIRECTORIES COMPILE_DEFINITIONS COMPILE_OPTIONS COMPILE_FLAGS
                            SKIP_UNITY_BUILD_INCLUSION GENERATED)
    get_source_file_property(value "${source}" TARGET_DIRECTORY ${target} ${property})
    if(value)
      set(alone ON)
    endif()
  endforeach()
  set(${out} ${alone} PARENT_SCOPE)
endfunction()

# Writes the batch `text` as the next file of `batch_files` (a list in the caller's scope).
macro(_ampbench_write_batch)
  list(LENGTH batch_files index)
  file(CONFIGURE OUTPUT "${batch_dir}/unity_${index}.cpp" CONTENT "${text}" @ONLY)
  list(APPEND batch_files "${batch_dir}/unity_${index}.cpp")
  set(text "")
  set(in_batch 0)
endmacro()

function(_ampbench_unity_target target)
  get_target_property(unity ${target} UNITY_BUILD)
  get_target_property(type ${target} TYPE)
  if(NOT unity OR type STREQUAL "INTERFACE_LIBRARY" OR type STREQUAL "UTILITY")
    return()
  endif()
  get_target_property(sources ${target} SOURCES)
  get_target_property(source_dir ${target} SOURCE_DIR)
  get_target_property(binary_dir ${target} BINARY_DIR)
  set(batch_dir "${binary_dir}/CMakeFiles/${target}.dir/unity")
  set(batched "")
  set(batch_files "")
  set(text "")
  set(in_batch 0)
  foreach(source IN LISTS sources)
    if(NOT source MATCHES "\\.cpp$" OR source MATCHES "^\\$<")
      continue()
    endif()
    cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY "${source_dir}" NORMALIZE OUTPUT_VARIABLE path)
    cmake_path(IS_PREFIX PROJECT_SOURCE_DIR "${path}" NORMALIZE in_checkout)
    cmake_path(IS_PREFIX PROJECT_BINARY_DIR "${path}" NORMALIZE in_build_tree)
    _ampbench_compiles_alone(${target} "${path}" alone)
    if(NOT in_checkout OR in_build_tree OR alone)
      continue()
    endif()
    file(RELATIVE_PATH relative "${batch_dir}" "${path}")
    string(APPEND text "#include \"${relative}\"\n")
    list(APPEND batched "${path}")
    math(EXPR in_batch "${in_batch} + 1")
    if(in_batch EQUAL CMAKE_UNITY_BUILD_BATCH_SIZE)
      _ampbench_write_batch()
    endif()
  endforeach()
  if(in_batch GREATER 0)
    _ampbench_write_batch()
  endif()
  set_target_properties(${target} PROPERTIES UNITY_BUILD OFF)
  if(batched)
    set_source_files_properties(${batched} TARGET_DIRECTORY ${target} PROPERTIES HEADER_FILE_ONLY ON)
    target_sources(${target} PRIVATE ${batch_files})
  endif()
endfunction()

function(_ampbench_unity_directory directory)
  get_property(targets DIRECTORY "${directory}" PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    _ampbench_unity_target(${target})
  endforeach()
  get_property(subdirectories DIRECTORY "${directory}" PROPERTY SUBDIRECTORIES)
  foreach(subdirectory IN LISTS subdirectories)
    _ampbench_unity_directory("${subdirectory}")
  endforeach()
endfunction()

# Call once, at the end of the top-level CMakeLists.txt, when every target exists.
function(ampbench_relocatable_unity_builds)
  _ampbench_unity_directory("${PROJECT_SOURCE_DIR}")
endfunction()
