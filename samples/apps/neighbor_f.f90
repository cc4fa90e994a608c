! neighbor_f: a neighbourhood collective from Fortran.
!
! The ranks form a 2-D Cartesian grid (MPI_DIMS_CREATE, MPI_CART_CREATE, periodic in the first
! dimension only, so that the border ranks of the second have MPI_PROC_NULL neighbours) and
! exchange halos of n doubles with their four neighbours each iteration with
! MPI_NEIGHBOR_ALLTOALL, blocks of n and n/2 doubles with MPI_NEIGHBOR_ALLTOALLV, gather one
! value from each neighbour with MPI_INEIGHBOR_ALLGATHER completed by MPI_WAIT, then sum a
! value over the grid with MPI_ALLREDUCE. The grid is freed
! at the end (MPI_COMM_FREE). Open MPI's Fortran bindings call PMPI directly, so only the
! recorder's Fortran entry points see these calls.
!
! Usage: neighbor_f [iterations=10]
program neighbor_f
  use mpi
  implicit none
  integer, parameter :: n = 64
  integer :: ierr, rank, nprocs, grid, it, iters, nargs
  integer :: dims(2), counts(4), displs(4), req
  logical :: periods(2)
  double precision :: sendbuf(4 * n), recvbuf(4 * n), local, total
  character(len=32) :: arg

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  iters = 10
  nargs = command_argument_count()
  if (nargs >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) iters
  end if

  dims = 0
  periods(1) = .true.
  periods(2) = .false.
  call MPI_DIMS_CREATE(nprocs, 2, dims, ierr)
  call MPI_CART_CREATE(MPI_COMM_WORLD, 2, dims, periods, .false., grid, ierr)

  sendbuf = rank
  recvbuf = 0
  counts = (/ n, n, n / 2, n / 2 /)
  displs = (/ 0, n, 2 * n, 3 * n /)
  do it = 1, iters
    call MPI_NEIGHBOR_ALLTOALL(sendbuf, n, MPI_DOUBLE_PRECISION, recvbuf, n, MPI_DOUBLE_PRECISION, grid, ierr)
    call MPI_NEIGHBOR_ALLTOALLV(sendbuf, counts, displs, MPI_DOUBLE_PRECISION, recvbuf, counts, displs, &
                                MPI_DOUBLE_PRECISION, grid, ierr)
    call MPI_INEIGHBOR_ALLGATHER(sendbuf, 1, MPI_DOUBLE_PRECISION, recvbuf, 1, MPI_DOUBLE_PRECISION, grid, req, ierr)
    call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
    local = sum(recvbuf)
    call MPI_ALLREDUCE(local, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, grid, ierr)
    sendbuf = sendbuf + 1.0d0
  end do

  call MPI_COMM_FREE(grid, ierr)
  call MPI_FINALIZE(ierr)
end program neighbor_f
