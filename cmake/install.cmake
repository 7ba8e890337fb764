# Install rules and the CMake package: `cmake --install <build> --prefix <p>` puts the public
# headers (lib/include: bam/**) under <p>/include, the static libraries under <p>/lib, and a
# package config under <p>/lib/cmake/bamkit, so that a program's CMakeLists.txt can do
#   find_package(bamkit REQUIRED)
#   target_link_libraries(app PRIVATE bamkit::bamkit)   # host library
#   target_link_libraries(app PRIVATE bamkit::cuda)     # GPU library (CUDA builds)
# examples/sum_array is such a program. The git-describe header stays private to the build.
include(CMakePackageConfigHelpers)

set(BAM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/bamkit)

set(_bam_installed bamkit)
if(TARGET bamkit_cuda)
  list(APPEND _bam_installed bamkit_cuda)
endif()
install(TARGETS ${_bam_installed} EXPORT bamkitTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/lib/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT bamkitTargets NAMESPACE bamkit:: DESTINATION ${BAM_INSTALL_CMAKEDIR})

# What the package config needs to know about this build.
set(BAM_PACKAGE_HAVE_CUDA ${BAM_HAVE_CUDA})
set(BAM_PACKAGE_CUDA_COMPILER "")
set(BAM_PACKAGE_CUDA_ARCHS "")
set(BAM_PACKAGE_CUDA_ROOT "")
if(BAM_HAVE_CUDA)
  set(BAM_PACKAGE_CUDA_COMPILER ${CMAKE_CUDA_COMPILER})
  set(BAM_PACKAGE_CUDA_ARCHS "${BAM_CUDA_ARCHS}")
  set(BAM_PACKAGE_CUDA_ROOT ${CUDAToolkit_LIBRARY_ROOT})
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/bamkitConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/bamkitConfig.cmake
                              INSTALL_DESTINATION ${BAM_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/bamkitConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/bamkitConfig.cmake
              ${PROJECT_BINARY_DIR}/bamkitConfigVersion.cmake
        DESTINATION ${BAM_INSTALL_CMAKEDIR})
