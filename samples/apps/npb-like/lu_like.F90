! lu_like: the communication pattern of a NAS-LU-like SSOR solver, a 2-D pipelined wavefront,
! in Fortran (use mpi) and compiled without debug information (-O2, no -g), once per process
! count, as the NAS suites are (grid and rank count are compile-time constants).
!
! The P = NPROCS ranks (a power of two) form an xdim x ydim grid with xdim = ydim or 2 * ydim
! (x the longer side), numbered x fastest (rank = ix + xdim * iy). The NG x NG x NZ grid of 5
! variables is split in x and y. Each iteration (NITER) is one SSOR step:
!   - the lower sweep (blts), plane by plane k = 2 .. NZ-1: MPI_Recv from the north (iy - 1)
!     and from the west (ix - 1) where they exist (5 * nx and 5 * ny doubles), a Gauss-Seidel
!     update of the plane, MPI_Send to the south (iy + 1) and to the east (ix + 1);
!   - the upper sweep (buts), k = NZ-1 .. 2: the reverse, receive from south and east, update,
!     send to north and west;
!   - the residual norm: MPI_Allreduce (MPI_SUM) of 5 doubles.
! Boundaries are not periodic.
!
! Compile-time constants (the source is preprocessed: -cpp or the .F90 suffix): NPROCS (required:
! the rank count, checked against MPI_COMM_SIZE), NG (x and y extent, default 32, a multiple of
! xdim), NZ (planes, default 12), NITER (iterations, default 3).
!
!   mpifort -O2 -DNPROCS=16 -o lu_like.16 lu_like.F90 && mpiexec -n 16 ./lu_like.16
#ifndef NPROCS
#error "compile with -DNPROCS=<number of ranks>"
#endif
#ifndef NG
#define NG 32
#endif
#ifndef NZ
#define NZ 12
#endif
#ifndef NITER
#define NITER 3
#endif
program lu_like
  use mpi
  use, intrinsic :: iso_fortran_env, only: error_unit
  implicit none
  integer, parameter :: nprocs_c = NPROCS, ng = NG, nz = NZ, niter = NITER
  double precision, parameter :: omega = 1.2d0
  integer :: ierr, rank, size, l2, xdim, ydim, ix, iy, nx, ny
  integer :: north, south, west, east, it, k, i, j, m
  double precision, allocatable :: v(:,:,:,:), rsd(:,:,:,:), bufx(:), bufy(:)
  double precision :: norm_loc(5), norm(5)
  integer :: status(MPI_STATUS_SIZE)

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, size, ierr)
  if (size /= nprocs_c) then
    if (rank == 0) write (error_unit, '(a,i0,a,i0,a,i0)') 'lu_like: compiled for NPROCS=', nprocs_c, &
      ' processes but run on ', size, '; rebuild with -DNPROCS=', size
    call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
  end if
  l2 = 0
  do while (2**l2 < nprocs_c)
    l2 = l2 + 1
  end do
  if (2**l2 /= nprocs_c) then
    if (rank == 0) write (error_unit, '(a,i0,a)') 'lu_like: NPROCS=', nprocs_c, ' is not a power of two'
    call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
  end if
  ydim = 2**(l2 / 2)
  xdim = nprocs_c / ydim
  ix = mod(rank, xdim)
  iy = rank / xdim
  nx = ng / xdim
  ny = ng / ydim
  north = MPI_PROC_NULL
  south = MPI_PROC_NULL
  west = MPI_PROC_NULL
  east = MPI_PROC_NULL
  if (iy > 0) north = rank - xdim
  if (iy < ydim - 1) south = rank + xdim
  if (ix > 0) west = rank - 1
  if (ix < xdim - 1) east = rank + 1

  allocate (v(5, 0:nx + 1, 0:ny + 1, nz), rsd(5, 0:nx + 1, 0:ny + 1, nz), bufx(5 * nx), bufy(5 * ny))
  v = 0.0d0
  rsd = 0.0d0
  do k = 1, nz
    do j = 1, ny
      do i = 1, nx
        do m = 1, 5
          rsd(m, i, j, k) = sin(0.1d0 * (ix * nx + i) + 0.2d0 * (iy * ny + j) + 0.3d0 * k + m)
        end do
      end do
    end do
  end do

  do it = 1, niter
    ! lower sweep
    do k = 2, nz - 1
      if (north /= MPI_PROC_NULL) then
        call MPI_RECV(bufx, 5 * nx, MPI_DOUBLE_PRECISION, north, 1, MPI_COMM_WORLD, status, ierr)
        call unpack_row(0)
      end if
      if (west /= MPI_PROC_NULL) then
        call MPI_RECV(bufy, 5 * ny, MPI_DOUBLE_PRECISION, west, 2, MPI_COMM_WORLD, status, ierr)
        call unpack_col(0)
      end if
      do j = 1, ny
        do i = 1, nx
          do m = 1, 5
            v(m, i, j, k) = (rsd(m, i, j, k) + omega * (v(m, i - 1, j, k) + v(m, i, j - 1, k) + &
                             v(m, i, j, k - 1))) / (1.0d0 + 3.0d0 * omega)
          end do
        end do
      end do
      if (south /= MPI_PROC_NULL) then
        call pack_row(ny)
        call MPI_SEND(bufx, 5 * nx, MPI_DOUBLE_PRECISION, south, 1, MPI_COMM_WORLD, ierr)
      end if
      if (east /= MPI_PROC_NULL) then
        call pack_col(nx)
        call MPI_SEND(bufy, 5 * ny, MPI_DOUBLE_PRECISION, east, 2, MPI_COMM_WORLD, ierr)
      end if
    end do
    ! upper sweep
    do k = nz - 1, 2, -1
      if (south /= MPI_PROC_NULL) then
        call MPI_RECV(bufx, 5 * nx, MPI_DOUBLE_PRECISION, south, 3, MPI_COMM_WORLD, status, ierr)
        call unpack_row(ny + 1)
      end if
      if (east /= MPI_PROC_NULL) then
        call MPI_RECV(bufy, 5 * ny, MPI_DOUBLE_PRECISION, east, 4, MPI_COMM_WORLD, status, ierr)
        call unpack_col(nx + 1)
      end if
      do j = ny, 1, -1
        do i = nx, 1, -1
          do m = 1, 5
            v(m, i, j, k) = v(m, i, j, k) + 0.5d0 * omega * (v(m, i + 1, j, k) + v(m, i, j + 1, k) + &
                            v(m, i, j, k + 1) - 3.0d0 * v(m, i, j, k)) / (1.0d0 + 3.0d0 * omega)
          end do
        end do
      end do
      if (north /= MPI_PROC_NULL) then
        call pack_row(1)
        call MPI_SEND(bufx, 5 * nx, MPI_DOUBLE_PRECISION, north, 3, MPI_COMM_WORLD, ierr)
      end if
      if (west /= MPI_PROC_NULL) then
        call pack_col(1)
        call MPI_SEND(bufy, 5 * ny, MPI_DOUBLE_PRECISION, west, 4, MPI_COMM_WORLD, ierr)
      end if
    end do
    ! residual norm
    norm_loc = 0.0d0
    do k = 2, nz - 1
      do j = 1, ny
        do i = 1, nx
          do m = 1, 5
            norm_loc(m) = norm_loc(m) + (rsd(m, i, j, k) - v(m, i, j, k))**2
          end do
        end do
      end do
    end do
    call MPI_ALLREDUCE(norm_loc, norm, 5, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  if (rank == 0) write (*, '(a,i0,a,i0,a,i0,a,es14.6)') 'lu_like: P=', nprocs_c, ' (', xdim, 'x', ydim, &
    ') residual ', sqrt(sum(norm))
  deallocate (v, rsd, bufx, bufy)
  call MPI_FINALIZE(ierr)

contains

  subroutine pack_row(jj)
    integer, intent(in) :: jj
    integer :: ii, mm
    do ii = 1, nx
      do mm = 1, 5
        bufx(5 * (ii - 1) + mm) = v(mm, ii, jj, k)
      end do
    end do
  end subroutine pack_row

  subroutine unpack_row(jj)
    integer, intent(in) :: jj
    integer :: ii, mm
    do ii = 1, nx
      do mm = 1, 5
        v(mm, ii, jj, k) = bufx(5 * (ii - 1) + mm)
      end do
    end do
  end subroutine unpack_row

  subroutine pack_col(ii)
    integer, intent(in) :: ii
    integer :: jj, mm
    do jj = 1, ny
      do mm = 1, 5
        bufy(5 * (jj - 1) + mm) = v(mm, ii, jj, k)
      end do
    end do
  end subroutine pack_col

  subroutine unpack_col(ii)
    integer, intent(in) :: ii
    integer :: jj, mm
    do jj = 1, ny
      do mm = 1, 5
        v(mm, ii, jj, 0 + k) = bufy(5 * (jj - 1) + mm)
      end do
    end do
  end subroutine unpack_col

end program lu_like
