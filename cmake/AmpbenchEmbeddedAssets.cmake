# ampbench_embed_assets(TARGET SYMBOL FILE [SYMBOL FILE ...]): compiles each text file into TARGET
# as `const char* const ampbench::reports::detail::SYMBOL` holding its bytes, so the HTML pages'
# scripts and stylesheet live in .js and .css files (linted, diffed and read as what they are)
# while the pages still open offline. Editing a file re-runs CMake, which regenerates its .cpp.
set(_ampbench_asset_template "${CMAKE_CURRENT_LIST_DIR}/embedded_asset.cpp.in")

function(ampbench_embed_assets target)
  set(pairs ${ARGN})
  list(LENGTH pairs count)
  math(EXPR odd "${count} % 2")
  if(count EQUAL 0 OR odd)
    message(FATAL_ERROR "ampbench_embed_assets(${target}): expected SYMBOL FILE pairs, got '${ARGN}'")
  endif()
  while(pairs)
    list(POP_FRONT pairs ASSET_SYMBOL file)
    get_filename_component(path "${file}" ABSOLUTE)
    file(READ "${path}" ASSET_TEXT)
    # The text goes into a raw string literal; its closing sequence must not appear in it.
    string(FIND "${ASSET_TEXT}" ")ampbench_asset\"" clash)
    if(NOT clash EQUAL -1)
      message(FATAL_ERROR "${path} contains ')ampbench_asset\"', which would end its C++ string early")
    endif()
    file(RELATIVE_PATH ASSET_SOURCE "${PROJECT_SOURCE_DIR}" "${path}")
    set(generated "${CMAKE_CURRENT_BINARY_DIR}/embedded/${ASSET_SYMBOL}.cpp")
    configure_file("${_ampbench_asset_template}" "${generated}" @ONLY)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${path}")
    target_sources(${target} PRIVATE "${generated}")
  endwhile()
endfunction()
