# Which libkpca.a a CMake build needs: the Rust target of the toolchain's
# processor and float ABI. Shared by the repository's CMakeLists.txt
# (add_subdirectory) and the release's kpcaConfig.cmake (find_package).
#
#   kpca_select_target(<out-var> <error-var> <host-triple>)
#
# Sets <out-var> to one of the targets below, or to "" with the reason in
# <error-var>. In order:
#   1. the cache variable KPCA_TARGET, when set (any of the targets below);
#   2. the host triple when not cross-compiling;
#   3. CMAKE_C_COMPILER_TARGET, when it is one of the targets (clang --target=);
#   4. the CPU from -mcpu= in CMAKE_C_FLAGS (else -march=, else
#      CMAKE_SYSTEM_PROCESSOR) and the float ABI from -mfloat-abi= (default
#      soft, as arm-none-eabi-gcc's):
#        cortex-m0, -m0plus, -m1, -m23, armv6-m, armv6s-m, armv8-m.base -> thumbv6m-none-eabi
#        cortex-m3, armv7-m                                             -> thumbv7m-none-eabi
#        cortex-m4, -m7, armv7e-m, soft or softfp                       -> thumbv7em-none-eabi
#        cortex-m4, -m7, armv7e-m, hard                                 -> thumbv7em-none-eabihf
#        cortex-m33, -m35p, -m52, -m55, -m85, armv8-m.main, armv8.1-m.main,
#                                  hard                                 -> thumbv8m.main-none-eabihf
#                                  soft or softfp                       -> thumbv7m-none-eabi
#        riscv32*, rv32* with -mabi=ilp32 (or none given)                -> riscv32imac-unknown-none-elf
# The flags are read when find_package / add_subdirectory runs: put -mcpu and
# -mfloat-abi in the toolchain file (CMAKE_C_FLAGS_INIT), or set KPCA_TARGET.

set(KPCA_TARGETS
    thumbv6m-none-eabi thumbv7m-none-eabi thumbv7em-none-eabi thumbv7em-none-eabihf
    thumbv8m.main-none-eabihf riscv32imac-unknown-none-elf)

# The value of -<name>=VALUE in <flags> (last one wins, as in gcc), or "".
function(_kpca_flag out flags name)
  set(value "")
  string(REGEX MATCHALL "(^| )-${name}=[^ ]+" all " ${flags}")
  foreach(m IN LISTS all)
    string(REGEX REPLACE "^ ?-${name}=" "" value "${m}")
  endforeach()
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

# The Arm M-profile target for a CPU or architecture name and a float ABI.
function(_kpca_arm_target out err cpu float_abi)
  set(t "")
  set(e "")
  string(REGEX REPLACE "\\+.*$" "" cpu "${cpu}")
  set(hard FALSE)
  if(float_abi STREQUAL "hard")
    set(hard TRUE)
  endif()
  if(cpu MATCHES "^(cortex-m0|cortex-m0plus|cortex-m0\\.small-multiply|cortex-m0plus\\.small-multiply|cortex-m1|cortex-m23|armv6-m|armv6s-m|armv8-m\\.base)$")
    if(hard)
      set(e "${cpu} has no FPU, but -mfloat-abi=hard was given")
    else()
      set(t thumbv6m-none-eabi)
    endif()
  elseif(cpu MATCHES "^(cortex-m3|armv7-m)$")
    if(hard)
      set(e "${cpu} has no FPU, but -mfloat-abi=hard was given")
    else()
      set(t thumbv7m-none-eabi)
    endif()
  elseif(cpu MATCHES "^(cortex-m4|cortex-m7|armv7e-m)$")
    if(hard)
      set(t thumbv7em-none-eabihf)
    else()
      set(t thumbv7em-none-eabi)
    endif()
  elseif(cpu MATCHES "^(cortex-m33|cortex-m35p|cortex-m52|cortex-m55|cortex-m85|star-mc1|armv8-m\\.main|armv8\\.1-m\\.main)$")
    if(hard)
      set(t thumbv8m.main-none-eabihf)
    else()
      # No soft-float ARMv8-M Mainline build: the ARMv7-M one runs there.
      set(t thumbv7m-none-eabi)
    endif()
  else()
    set(e "unknown Arm CPU or architecture '${cpu}'")
  endif()
  set(${out} "${t}" PARENT_SCOPE)
  set(${err} "${e}" PARENT_SCOPE)
endfunction()

function(kpca_select_target out err host)
  set(${err} "" PARENT_SCOPE)
  list(JOIN KPCA_TARGETS ", " names)
  if(KPCA_TARGET)
    if(NOT KPCA_TARGET IN_LIST KPCA_TARGETS AND NOT KPCA_TARGET STREQUAL host)
      set(${out} "" PARENT_SCOPE)
      set(${err} "KPCA_TARGET=${KPCA_TARGET} is not one of: ${names}, ${host}" PARENT_SCOPE)
    else()
      set(${out} "${KPCA_TARGET}" PARENT_SCOPE)
    endif()
    return()
  endif()
  if(NOT CMAKE_CROSSCOMPILING)
    set(${out} "${host}" PARENT_SCOPE)
    return()
  endif()
  if(CMAKE_C_COMPILER_TARGET AND CMAKE_C_COMPILER_TARGET IN_LIST KPCA_TARGETS)
    set(${out} "${CMAKE_C_COMPILER_TARGET}" PARENT_SCOPE)
    return()
  endif()
  set(flags "${CMAKE_C_FLAGS}")
  _kpca_flag(cpu "${flags}" mcpu)
  _kpca_flag(march "${flags}" march)
  _kpca_flag(float_abi "${flags}" mfloat-abi)
  _kpca_flag(mabi "${flags}" mabi)
  string(TOLOWER "${CMAKE_SYSTEM_PROCESSOR}" proc)
  set(t "")
  set(e "")
  if(proc MATCHES "^riscv" OR march MATCHES "^rv")
    if(march AND NOT march MATCHES "^rv32")
      set(e "-march=${march} is not a 32-bit RISC-V")
    elseif(proc MATCHES "^riscv64")
      set(e "CMAKE_SYSTEM_PROCESSOR=${CMAKE_SYSTEM_PROCESSOR} is a 64-bit RISC-V")
    elseif(mabi AND NOT mabi STREQUAL "ilp32")
      set(e "-mabi=${mabi}: the RISC-V library has the soft-float ilp32 ABI")
    else()
      set(t riscv32imac-unknown-none-elf)
    endif()
  else()
    set(arch "${cpu}")
    if(NOT arch)
      set(arch "${march}")
    endif()
    if(NOT arch)
      set(arch "${proc}")
    endif()
    if(NOT float_abi)
      set(float_abi soft)
    endif()
    _kpca_arm_target(t e "${arch}" "${float_abi}")
  endif()
  if(e)
    set(e "${e} (CMAKE_SYSTEM_PROCESSOR=${CMAKE_SYSTEM_PROCESSOR}, CMAKE_C_FLAGS=${CMAKE_C_FLAGS}); set KPCA_TARGET to one of: ${names}")
  endif()
  set(${out} "${t}" PARENT_SCOPE)
  set(${err} "${e}" PARENT_SCOPE)
endfunction()
