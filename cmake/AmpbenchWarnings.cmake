# ampbench_target_warnings(<target>): the project's warning set, applied to its own targets only
# (never to LibTorch's headers, which are included as SYSTEM by the imported targets).
function(ampbench_target_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor)
  if(AMPBENCH_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
