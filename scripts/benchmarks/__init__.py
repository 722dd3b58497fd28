"""The benchmark families of ``trap-benchmark`` (:mod:`trap_scripts.benchmark`), one module each."""
