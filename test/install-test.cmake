# ctest install-find-package: installs the build into WORK/prefix, then
# configures, builds and runs examples/embed against it with find_package.
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix
                RESULT_VARIABLE r OUTPUT_QUIET)
if(r)
  message(FATAL_ERROR "cmake --install failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SRC}/examples/embed -B ${WORK}/build
                        -DCMAKE_PREFIX_PATH=${WORK}/prefix RESULT_VARIABLE r)
if(r)
  message(FATAL_ERROR "find_package(rkc) failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/build RESULT_VARIABLE r)
if(r)
  message(FATAL_ERROR "building the embed example against the install failed")
endif()
execute_process(COMMAND ${WORK}/build/embed RESULT_VARIABLE r)
if(r)
  message(FATAL_ERROR "the installed embed example failed")
endif()
