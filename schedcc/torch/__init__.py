"""PyTorch in. Profiler traces of real runs: :mod:`schedcc.torch.kineto` (read),
:mod:`schedcc.torch.replay` (replay, measured vs replayed), :mod:`schedcc.torch.exposed`
(HTA's exposed communication), :mod:`schedcc.torch.whatif` (what-ifs); docs/traces.md.
Reading a trace needs neither torch nor HTA."""
