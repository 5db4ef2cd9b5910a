# Embed every datasets/schedules/*.sched file into the library as a C array,
# so `pipeopt` carries its families wherever it is installed; the files stay
# the one source of truth. Run in script mode:
#   cmake -DSRC_DIR=... -DOUT=... -P EmbedSchedules.cmake
file(GLOB files "${SRC_DIR}/*.sched")
list(SORT files)
set(body "/* Generated from the datasets/schedules programs by cmake/EmbedSchedules.cmake. */\n")
string(APPEND body "#include \"sched/family.h\"\n\n")
set(table "")
set(i 0)
foreach(f ${files})
  get_filename_component(name ${f} NAME)
  file(READ ${f} hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(APPEND body "static const char program_${i}[] = {${bytes} 0x00};\n")
  string(APPEND table "\t{\"${name}\", program_${i}},\n")
  math(EXPR i "${i} + 1")
endforeach()
string(APPEND body "\nconst struct builtin_program builtin_programs[] = {\n${table}\t{0, 0}\n};\n")
file(WRITE "${OUT}.tmp" "${body}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.tmp" "${OUT}")
file(REMOVE "${OUT}.tmp")
