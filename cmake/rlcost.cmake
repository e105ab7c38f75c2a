# rlcost_stage(NAME DEPS ...): one static library per folder src/NAME, from the
# .cc files found there (tests live under tests/NAME, not here).
function(rlcost_stage name)
  cmake_parse_arguments(ARG "" "" "DEPS" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/${name}/*.cc)
  add_library(rlcost_${name} STATIC ${srcs})
  target_include_directories(rlcost_${name}
    PUBLIC ${CMAKE_SOURCE_DIR}/include
    PRIVATE ${CMAKE_SOURCE_DIR}/src)
  target_link_libraries(rlcost_${name} PUBLIC ${ARG_DEPS})
  # Position-independent so the Python module (a shared object) can link them.
  set_target_properties(rlcost_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()
