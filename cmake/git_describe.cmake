# Run at build time (cmake -P): writes OUT with `git describe --always --dirty` of SRC, touching
# it only when the value changed, so reports always name the commit that was built.
execute_process(COMMAND git describe --always --dirty WORKING_DIRECTORY ${SRC}
                OUTPUT_VARIABLE d OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT d)
  set(d "unknown")
endif()
set(text "// Generated at build time by cmake/git_describe.cmake.\n#define BAM_GIT_DESCRIBE \"${d}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUT} "${text}")
endif()
