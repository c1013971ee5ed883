# One workload, recorded two ways: PyTorch's profiler (Kineto, Chrome trace JSON) when
# argv[1] is a path, and plain (to run under spanscope's collector) when it is "-":
#   python3 record.py kineto-h200.json && gzip kineto-h200.json
#   NVTX_INJECTION64_PATH=libspanscope-collector.so CUDA_INJECTION64_PATH=libspanscope-collector.so \
#       SPANSCOPE_OUTPUT=collector-h200.sps python3 record.py -
import sys
import torch

def step(x, host):
    y = torch.mm(x, x).relu_()
    x = y / y.norm()
    if step.n % 10 == 0:
        host.copy_(x[:64, :64], non_blocking=False)     # DtoH
        x[:64, :64].copy_(host.to("cuda"))               # HtoD
    step.n += 1
    return x
step.n = 0

torch.manual_seed(0)
x = torch.randn(512, 512, device="cuda")
host = torch.empty(64, 64, pin_memory=True)
for _ in range(20):
    x = step(x, host)
torch.cuda.synchronize()
out = sys.argv[1]
if out == "-":
    for _ in range(300):
        x = step(x, host)
    torch.cuda.synchronize()
else:
    from torch.profiler import profile, ProfilerActivity, record_function
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], profile_memory=True,
                 record_shapes=True) as prof:
        for i in range(300):
            with record_function("train_step"):
                x = step(x, host)
        torch.cuda.synchronize()
    prof.export_chrome_trace(out)
print("torch", torch.__version__, "cuda", torch.version.cuda, "steps", step.n)
