# Writes OUT (han_build_info.h) with the git commit of SRC and the build options; run at
# every build (cmake -P), rewriting the file only when its text changes, so `han --version`
# names the commit it was built from without forcing a rebuild each time.
execute_process(COMMAND git -C "${SRC}" describe --always --dirty --abbrev=10
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE status)
if(NOT status EQUAL 0 OR commit STREQUAL "")
  set(commit "unknown")
endif()
if(NATIVE)
  set(build "native build (-march=native)")
else()
  set(build "portable build")
endif()
set(text "#pragma once\n#define HAN_COMMIT \"${commit}\"\n#define HAN_BUILD \"${build}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE "${OUT}" "${text}")
endif()
