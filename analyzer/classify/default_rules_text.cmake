# Writes <binary dir>/generated/default_rules_text.cpp: the shipped rules text (analyzer/rules/
# default_rules.json) compiled in (analyzer/classify/default_rules_text.h). Rules with exactly this text were
# checked by the tests, so their regexes compile on first use. Regenerated when the file changes. Used by
# the main build and the fuzz build (tests/fuzz/CMakeLists.txt); sets <out_var> to the file's path.
function(forkscope_default_rules_text root out_var)
  set(json ${root}/analyzer/rules/default_rules.json)
  set(cpp ${CMAKE_BINARY_DIR}/generated/default_rules_text.cpp)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${json})
  file(READ ${json} text)
  string(FIND "${text}" ")forkscope_rules\"" delimiter)
  if(NOT delimiter EQUAL -1)
    message(FATAL_ERROR "default_rules.json contains the raw-string delimiter )forkscope_rules\"")
  endif()
  file(WRITE ${cpp}.tmp
       "// Generated from analyzer/rules/default_rules.json by analyzer/classify/default_rules_text.cmake: do not edit.\n"
       "#include \"analyzer/classify/default_rules_text.h\"\n\nnamespace forkscope::analyzer {\n\n"
       "std::string_view DefaultRulesText() {\n"
       "  static constexpr std::string_view kText = R\"forkscope_rules(${text})forkscope_rules\";\n"
       "  return kText;\n}\n\n}  // namespace forkscope::analyzer\n")
  configure_file(${cpp}.tmp ${cpp} COPYONLY)
  set(${out_var} ${cpp} PARENT_SCOPE)
endfunction()
