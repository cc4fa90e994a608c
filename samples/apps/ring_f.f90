! ring_f: the Fortran sample, proving the recorder's Fortran entry points end to end.
!
! A ring exchange written with `use mpi`: each iteration every rank passes a block to its right
! neighbour with MPI_SENDRECV, then exchanges with both neighbours through MPI_IRECV, MPI_ISEND
! and MPI_WAITALL, sums a value over a sub-communicator of its half of the ranks
! (MPI_COMM_SPLIT) with MPI_ALLREDUCE and a prefix over all ranks with MPI_EXSCAN (MPI-3), sends a block to MPI_PROC_NULL, synchronises the even
! ranks on a communicator made from a group (MPI_COMM_GROUP, MPI_GROUP_RANGE_INCL,
! MPI_COMM_CREATE, MPI_GROUP_FREE) and all ranks with MPI_BARRIER. Rank 0 broadcasts the
! iteration count first (MPI_BCAST) and the sub-communicators are freed at the end
! (MPI_COMM_FREE). Open MPI's Fortran bindings call PMPI directly, so without the recorder's
! Fortran entry points none of these calls would be recorded.
!
! Usage: ring_f [iterations=20]
program ring_f
  use mpi
  implicit none
  integer, parameter :: n = 256
  integer :: ierr, rank, nprocs, right, left, it, iters, halfcomm, nargs
  integer :: worldgroup, evengroup, evencomm
  integer :: requests(4), evenrange(3, 1)
  integer :: status(MPI_STATUS_SIZE)
  double precision :: sendbuf(n), recvbuf(n), fromleft(n), fromright(n), local, total, prefix
  character(len=32) :: arg

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  iters = 20
  nargs = command_argument_count()
  if (rank == 0 .and. nargs >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) iters
  end if
  call MPI_BCAST(iters, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_COMM_SPLIT(MPI_COMM_WORLD, rank / ((nprocs + 1) / 2), rank, halfcomm, ierr)
  ! The even ranks' communicator (the odd ones get MPI_COMM_NULL).
  call MPI_COMM_GROUP(MPI_COMM_WORLD, worldgroup, ierr)
  evenrange(:, 1) = (/ 0, nprocs - 1, 2 /)
  call MPI_GROUP_RANGE_INCL(worldgroup, 1, evenrange, evengroup, ierr)
  call MPI_COMM_CREATE(MPI_COMM_WORLD, evengroup, evencomm, ierr)
  call MPI_GROUP_FREE(evengroup, ierr)
  call MPI_GROUP_FREE(worldgroup, ierr)

  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  sendbuf = dble(rank)
  total = 0d0
  do it = 1, iters
    call MPI_SENDRECV(sendbuf, n, MPI_DOUBLE_PRECISION, right, 1, recvbuf, n, MPI_DOUBLE_PRECISION, left, 1, &
                      MPI_COMM_WORLD, status, ierr)
    call MPI_IRECV(fromleft, n, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, requests(1), ierr)
    call MPI_IRECV(fromright, n, MPI_DOUBLE_PRECISION, right, 3, MPI_COMM_WORLD, requests(2), ierr)
    call MPI_ISEND(sendbuf, n, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, requests(3), ierr)
    call MPI_ISEND(sendbuf, n, MPI_DOUBLE_PRECISION, left, 3, MPI_COMM_WORLD, requests(4), ierr)
    call MPI_WAITALL(4, requests, MPI_STATUSES_IGNORE, ierr)
    local = sum(recvbuf) + sum(fromleft) - sum(fromright)
    call MPI_ALLREDUCE(local, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, halfcomm, ierr)
    call MPI_EXSCAN(local, prefix, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    sendbuf = 0.5d0 * (recvbuf + sendbuf)
    call MPI_SEND(sendbuf, 8, MPI_DOUBLE_PRECISION, MPI_PROC_NULL, 4, MPI_COMM_WORLD, ierr)
    if (evencomm /= MPI_COMM_NULL) call MPI_BARRIER(evencomm, ierr)
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  end do
  if (rank == 0) print '(a,i0,a,i0,a,es12.5)', 'ring_f: ', nprocs, ' ranks, ', iters, ' iterations, total ', total
  if (evencomm /= MPI_COMM_NULL) call MPI_COMM_FREE(evencomm, ierr)
  call MPI_COMM_FREE(halfcomm, ierr)
  call MPI_FINALIZE(ierr)
end program ring_f
