# Writes <binary dir>/generated/openapi_text.cpp: docs/openapi.yaml compiled in (server/api/openapi_text.h),
# so the daemon serves the description of the API it was built with (GET /openapi.yaml). Regenerated when
# the file changes; sets <out_var> to the file's path.
function(forkscope_openapi_text root out_var)
  set(yaml ${root}/docs/openapi.yaml)
  set(cpp ${CMAKE_BINARY_DIR}/generated/openapi_text.cpp)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${yaml})
  file(READ ${yaml} text)
  string(FIND "${text}" ")fs_openapi\"" delimiter)
  if(NOT delimiter EQUAL -1)
    message(FATAL_ERROR "docs/openapi.yaml contains the raw-string delimiter )fs_openapi\"")
  endif()
  file(WRITE ${cpp}.tmp
       "// Generated from docs/openapi.yaml by server/api/openapi_text.cmake: do not edit.\n"
       "#include \"server/api/openapi_text.h\"\n\nnamespace forkscope::server {\n\n"
       "std::string_view OpenApiText() {\n"
       "  static constexpr std::string_view kText = R\"fs_openapi(${text})fs_openapi\";\n"
       "  return kText;\n}\n\n}  // namespace forkscope::server\n")
  configure_file(${cpp}.tmp ${cpp} COPYONLY)
  set(${out_var} ${cpp} PARENT_SCOPE)
endfunction()
