# CMake toolchain file for Arm Cortex-M with the GNU Arm Embedded toolchain
# (arm-none-eabi-gcc, newlib). Bare metal: no operating system.
#
#   cmake -DCMAKE_TOOLCHAIN_FILE=<kpca>/cmake/toolchains/arm-none-eabi.cmake \
#         [-DARM_CPU=cortex-m4] [-DARM_FPU=fpv4-sp-d16] [-DARM_FLOAT_ABI=hard] ...
#
# ARM_CPU        -mcpu (default cortex-m4); also CMAKE_SYSTEM_PROCESSOR
# ARM_FLOAT_ABI  -mfloat-abi: hard (default), softfp or soft
# ARM_FPU        -mfpu (default fpv4-sp-d16 for hard/softfp; none for soft)
# ARM_TOOLCHAIN_PREFIX  default arm-none-eabi- (a path prefix works too)
# kpca::kpca (find_package or add_subdirectory) picks the library from -mcpu
# and -mfloat-abi: cortex-m4 + hard is thumbv7em-none-eabihf.
set(CMAKE_SYSTEM_NAME Generic)
set(ARM_CPU "cortex-m4" CACHE STRING "-mcpu")
set(ARM_FLOAT_ABI "hard" CACHE STRING "-mfloat-abi: hard, softfp or soft")
if(ARM_FLOAT_ABI STREQUAL "soft")
  set(_arm_fpu_default "")
else()
  set(_arm_fpu_default "fpv4-sp-d16")
endif()
set(ARM_FPU "${_arm_fpu_default}" CACHE STRING "-mfpu (empty: none)")
set(ARM_TOOLCHAIN_PREFIX "arm-none-eabi-" CACHE STRING "prefix of gcc, ld, objcopy, ...")
# The try_compile projects of the compiler checks see the same settings.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES ARM_CPU ARM_FLOAT_ABI ARM_FPU ARM_TOOLCHAIN_PREFIX)

set(CMAKE_SYSTEM_PROCESSOR "${ARM_CPU}")
set(CMAKE_C_COMPILER "${ARM_TOOLCHAIN_PREFIX}gcc")
set(CMAKE_CXX_COMPILER "${ARM_TOOLCHAIN_PREFIX}g++")
set(CMAKE_ASM_COMPILER "${ARM_TOOLCHAIN_PREFIX}gcc")
# Compiler checks link nothing (a bare-metal program needs a linker script).
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(_arm_flags "-mcpu=${ARM_CPU} -mthumb -mfloat-abi=${ARM_FLOAT_ABI}")
if(ARM_FPU)
  string(APPEND _arm_flags " -mfpu=${ARM_FPU}")
endif()
set(CMAKE_C_FLAGS_INIT "${_arm_flags}")
set(CMAKE_CXX_FLAGS_INIT "${_arm_flags}")
set(CMAKE_ASM_FLAGS_INIT "${_arm_flags}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${_arm_flags}")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
